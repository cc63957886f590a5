/**
 * Vitest setup file (vitest.config.ts), run before each test file: the temp folders that
 * file's tests made with test/helpers/tmp.ts are removed once its tests are done.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from '../helpers/tmp.js';

afterAll(removeTempDirs);
