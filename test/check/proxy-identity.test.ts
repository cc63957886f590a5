import { describe, expect, it } from 'vitest';
import { verifyProxyDocuments } from '../../generator/core/pace/model-file/proxy-identity.js';
import { parseModelFile, type PaceModelFile } from '../../generator/core/pace/model-file/model-file.js';
import type { ScoreMatrix } from '../../generator/core/logs/matrix.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { fitPace } from '../../generator/core/pace/fit.js';

const ref = (key: string, doc_hash?: string) => ({ key, task: 't', doc_id: key.slice(2), metric: 'acc', ...(doc_hash ? { doc_hash } : {}) });

describe('the checkpoint ran the proxy documents the model was fitted on', () => {
  it('a proxy key whose logged document hash differs is an error and its score is not used; unhashed keys pass through', () => {
    const model = { proxy: [ref('t/a', 'h1'), ref('t/b', 'h2'), ref('t/c')] } as unknown as PaceModelFile;
    const matrix = { instances: [ref('t/a', 'h1'), ref('t/b', 'hX'), ref('t/c', 'hY')] } as unknown as ScoreMatrix;
    const scores = new Map([['t/a', 1], ['t/b', 1], ['t/c', 0]]);
    const out = verifyProxyDocuments(model, matrix, scores);
    expect([...out.scores.keys()]).toEqual(['t/a', 't/c']);
    expect(out.findings.map((f) => [f.code, f.severity, f.args.key])).toEqual([['pace-proxy-document-changed', 'error', 't/b']]);
    // The caller's map is untouched; with nothing changed the same map comes back.
    expect(scores.size).toBe(3);
    expect(verifyProxyDocuments(model, { instances: [ref('t/a', 'h1')] } as unknown as ScoreMatrix, scores).scores).toBe(scores);
  });

  it('fit records each proxy document’s harness hash; a model file that predicts nothing is invalid', async () => {
    const syn = syntheticPace({ models: 12, instances: 200, dims: 1, targets: 1, targetInstances: 50, seed: 'identity' });
    const hashed = { ...syn.matrix, instances: syn.matrix.instances.map((i, c) => ({ ...i, doc_hash: `hash-${c}` })) };
    const { model } = await fitPace(hashed, syn.targets, { bootstrap: 0, alpha: 0.1, seed: '1', svdScope: 'fold', configs: {} });
    expect(model!.proxy.length).toBeGreaterThan(0);
    for (const p of model!.proxy) expect(p.doc_hash).toBe(`hash-${hashed.instances.findIndex((i) => i.key === p.key)}`);
    const text = JSON.stringify({ ...model, targets: [] });
    expect(parseModelFile(text).model).toBeNull();
    expect(parseModelFile(text).reason).toMatch(/targets is empty/);
    expect(parseModelFile(JSON.stringify(model)).model).not.toBeNull();
  });
});
