export * from './findings.js';
export * from './exit-codes.js';
export * from './rng.js';
export * from './stable-json.js';
export * from './vfs.js';
export * from './jsonl.js';
export * from './output.js';
