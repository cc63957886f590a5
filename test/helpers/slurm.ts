/**
 * A real single-node Slurm cluster for the run-plan tests: munge, slurmctld and slurmd from
 * Debian's packages (`.ci/run` installs them), configured in a temp folder, started as root
 * and stopped after the test. Starts in about a second.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';

export const slurmInstalled = ['/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/sbatch', '/usr/sbin/munged'].every(existsSync);
export const isRoot = process.getuid?.() === 0;

export interface SlurmCluster {
  env: NodeJS.ProcessEnv;
  stop(): void;
}

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(cmd, args, { encoding: 'utf8', env, timeout: 60_000 });
}

/**
 * The clusters share this machine's node name and the ports below, so one runs at a time: a
 * machine-wide lock folder (with the holder's pid) is taken before starting and given back by
 * stop(); a second test file waits for it (a lock whose holder has exited is taken over).
 */
const LOCK = path.join(tmpdir(), 'aptpace-slurm-cluster.lock');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};
function takeClusterLock(timeoutMs = 1_200_000): void {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(path.join(LOCK, 'pid'), 'utf8'));
    } catch {}
    if (owner === process.pid) return;
    if (Number.isFinite(owner) && owner > 0 && !alive(owner)) rmSync(LOCK, { recursive: true, force: true });
    else if (Date.now() > until) throw new Error(`another test's Slurm cluster still runs (${LOCK}, pid ${owner})`);
    else spawnSync('sleep', ['1']);
  }
}

const releasing = (e: Error) => {
  rmSync(LOCK, { recursive: true, force: true });
  return e;
};

export function startSlurm(dir: string): SlurmCluster {
  takeClusterLock();
  const node = hostname().split('.')[0]!;
  for (const sub of ['state', 'spool', 'log']) mkdirSync(path.join(dir, sub), { recursive: true });
  // munge: one key and daemon per machine; reuse a running one.
  if (sh('pgrep', ['-x', 'munged']).status !== 0) {
    if (!existsSync('/etc/munge/munge.key')) sh('/usr/sbin/mungekey', ['-c', '-f']);
    mkdirSync('/run/munge', { recursive: true });
    sh('chown', ['munge:munge', '/run/munge']);
    const started = sh('runuser', ['-u', 'munge', '--', '/usr/sbin/munged']);
    if (started.status !== 0) throw releasing(new Error(`munged did not start: ${started.stderr}`));
  }
  const conf = path.join(dir, 'slurm.conf');
  writeFileSync(
    conf,
    [
      'ClusterName=aptpace-test',
      `SlurmctldHost=${node}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      `StateSaveLocation=${dir}/state`,
      `SlurmdSpoolDir=${dir}/spool`,
      `SlurmctldPidFile=${dir}/slurmctld.pid`,
      `SlurmdPidFile=${dir}/slurmd.pid`,
      `SlurmctldLogFile=${dir}/log/slurmctld.log`,
      `SlurmdLogFile=${dir}/log/slurmd.log`,
      'SlurmctldPort=16817',
      'SlurmdPort=16818',
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'MpiDefault=none',
      'ReturnToService=2',
      'JobCompType=jobcomp/none',
      'AccountingStorageType=accounting_storage/none',
      `NodeName=${node} CPUs=2 RealMemory=1000 State=UNKNOWN`,
      `PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  const env = { ...process.env, SLURM_CONF: conf };
  const ctl = sh('/usr/sbin/slurmctld', ['-c'], env);
  if (ctl.status !== 0) throw releasing(new Error(`slurmctld did not start: ${ctl.stderr}`));
  const d = sh('/usr/sbin/slurmd', [], env);
  if (d.status !== 0) throw releasing(new Error(`slurmd did not start: ${d.stderr}`));
  for (let i = 0; i < 60; i++) {
    if (/idle/.test(sh('sinfo', ['-h', '-o', '%T'], env).stdout ?? '')) break;
    spawnSync('sleep', ['0.5']);
  }
  const stop = () => {
    for (const pidFile of ['slurmd.pid', 'slurmctld.pid']) {
      const file = path.join(dir, pidFile);
      if (existsSync(file)) sh('kill', [readFileSync(file, 'utf8').trim()]);
    }
    // Wait for the daemons to let go of the ports before the next cluster may start.
    for (let i = 0; i < 20 && ['slurmd.pid', 'slurmctld.pid'].some((f) => existsSync(path.join(dir, f)) && alive(Number(readFileSync(path.join(dir, f), 'utf8').trim()))); i++) spawnSync('sleep', ['0.5']);
    rmSync(LOCK, { recursive: true, force: true });
  };
  return { env, stop };
}
