/**
 * The canonical format itself (`schema_version: "traj/1"`), so `normalize` output reads back
 * unchanged and later steps can take it as input. Validation happens in read.ts like for
 * every other reader; this reader only checks it was given a canonical record.
 */
import { isRecord } from '../text.js';
import { TRAJECTORY_SCHEMA_VERSION, type Trajectory } from '../types.js';
import type { FormatReader } from './reader.js';

export const canonicalReader: FormatReader = {
  title: 'aptpace canonical trajectory (traj/1)',
  framework: 'aptpace',
  containers: ['record', 'document'],
  detect(v) {
    return isRecord(v) && v.schema_version === TRAJECTORY_SCHEMA_VERSION;
  },
  read(value) {
    return value as Trajectory;
  },
};
