/**
 * The ordered list of trajectory readers. Detection tries them in this order and the first
 * match wins, so the most specific shapes come first (canonical before everything; the
 * generic chat reader after mini-swe-agent, whose message lists it would also accept).
 */
import type { FormatReader } from './reader.js';
import { canonicalReader } from './canonical-jsonl.js';
import { sweAgentTrajReader } from './swe-agent-traj.js';
import { miniSweAgentReader } from './mini-swe-agent.js';
import { openhandsEventsReader } from './openhands-events.js';
import { openhandsOutputReader } from './openhands-output-jsonl.js';
import { deepResearchStepsReader } from './deep-research-steps.js';
import { chatMessagesReader } from './chat-messages-jsonl.js';

export type FormatName =
  | 'canonical-jsonl'
  | 'swe-agent-traj'
  | 'mini-swe-agent'
  | 'openhands-events'
  | 'openhands-output-jsonl'
  | 'deep-research-steps'
  | 'chat-messages-jsonl';

export const formatReaders = {
  'canonical-jsonl': canonicalReader,
  'swe-agent-traj': sweAgentTrajReader,
  'mini-swe-agent': miniSweAgentReader,
  'openhands-events': openhandsEventsReader,
  'openhands-output-jsonl': openhandsOutputReader,
  'deep-research-steps': deepResearchStepsReader,
  'chat-messages-jsonl': chatMessagesReader,
} satisfies Record<FormatName, FormatReader>;

export const formatOrder: readonly FormatName[] = [
  'canonical-jsonl',
  'swe-agent-traj',
  'openhands-output-jsonl',
  'openhands-events',
  'deep-research-steps',
  'mini-swe-agent',
  'chat-messages-jsonl',
];

export function isFormatName(name: string): name is FormatName {
  return Object.prototype.hasOwnProperty.call(formatReaders, name);
}

/** First reader whose shape test accepts `value` in this container. */
export function detectFormat(value: unknown, container: 'document' | 'record'): FormatName | null {
  for (const name of formatOrder) {
    const reader = formatReaders[name];
    if (reader.containers.includes(container) && reader.detect(value)) return name;
  }
  return null;
}
