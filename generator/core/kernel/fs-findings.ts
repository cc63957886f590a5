import type { FindingCatalog } from './findings.js';

/**
 * Codes for ordinary file-system conditions: a walk that meets a loop or a dangling link, and
 * the errors the OS reports for a path (missing, unreadable, wrong kind). Raised by the walker
 * and by the CLI when an operation on a named path fails, so none of them is a crash.
 */
export const fsFindings = {
  'fs-symlink-loop': {
    severity: 'error',
    title: 'Symbolic link loop',
    message: (a) => `${a.path} leads back to ${a.ancestor ?? 'itself'} through symbolic links; not followed`,
  },
  'fs-dangling-symlink': {
    severity: 'warning',
    title: 'Dangling symbolic link',
    message: (a) => `${a.path} is a symbolic link to ${a.to ?? 'a missing file'}, which does not exist; skipped`,
  },
  'fs-unreadable': {
    severity: 'error',
    title: 'Path cannot be read',
    message: (a) => `cannot read ${a.path}: ${a.reason}`,
  },
  'fs-unwritable': {
    severity: 'error',
    title: 'Path cannot be written',
    message: (a) => `cannot write ${a.path}: ${a.reason}`,
  },
  'fs-not-a-file': {
    severity: 'error',
    title: 'A folder where a file is expected',
    message: (a) => `${a.path} is a folder; a file is expected here`,
  },
  'fs-not-a-directory': {
    severity: 'error',
    title: 'A file where a folder is expected',
    message: (a) => `${a.path} (or a folder above it) is not a folder`,
  },
  'fs-missing': {
    severity: 'error',
    title: 'Path does not exist',
    message: (a) => `${a.path} does not exist`,
  },
  'fs-not-regular': {
    severity: 'warning',
    title: 'Not a regular file',
    message: (a) => `${a.path} is not a regular file (a FIFO, socket or device); skipped`,
  },
  'input-empty': {
    severity: 'error',
    title: 'Nothing to work on',
    message: (a) => `${a.path} holds no ${a.what}; there is nothing to ${a.verb}, so no verdict is given`,
  },
  'input-too-deep': {
    severity: 'error',
    title: 'Input nested too deeply',
    message: (a) => `${a.path} nests values more than ${a.limit} levels deep; refused`,
  },
  'findings-folded': {
    severity: 'info',
    title: 'More findings of one kind',
    message: (a) => `${a.count} more ${a.code} finding(s) are not listed here (the first ${a.kept} are); --findings-file lists every one`,
  },
  'output-set-foreign': {
    severity: 'error',
    title: 'File is not part of its folder\'s set',
    message: (a) => `${a.path} is not one of the files ${a.set} recorded in ${a.manifest}; another command or a person put it there. Rerun ${a.set}`,
  },
  'output-set-torn': {
    severity: 'error',
    title: 'Output folder is an incomplete set',
    message: (a) =>
      a.reason === 'incomplete'
        ? `${a.path} was being rewritten when its writer stopped; its files do not belong together. Rerun the command that wrote it`
        : `${a.path} does not match the content hash its folder's ${a.manifest} recorded (${a.reason}); the set was torn or edited. Rerun the command that wrote it`,
  },
} satisfies FindingCatalog;
