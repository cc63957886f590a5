/**
 * Offline token counting for prompt budgets. BPE tables load lazily (they are megabytes);
 * `chars` is a dependency-free estimate (4 characters per token) for quick runs.
 */
export const TOKENIZERS = ['cl100k_base', 'o200k_base', 'chars'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

export interface TokenCounter {
  name: TokenizerName;
  count(text: string): number;
}

export function isTokenizerName(value: string): value is TokenizerName {
  return (TOKENIZERS as readonly string[]).includes(value);
}

// Trajectories quote arbitrary text, including strings that look like special tokens;
// they are plain text to a base model's prompt, so none is treated as special.
const plainText = { disallowedSpecial: new Set<string>() };

export async function loadTokenCounter(name: TokenizerName): Promise<TokenCounter> {
  switch (name) {
    case 'chars':
      return { name, count: (text) => Math.ceil(text.length / 4) };
    case 'cl100k_base': {
      const m = await import('gpt-tokenizer/encoding/cl100k_base');
      return { name, count: (text) => m.countTokens(text, plainText as never) };
    }
    case 'o200k_base': {
      const m = await import('gpt-tokenizer/encoding/o200k_base');
      return { name, count: (text) => m.countTokens(text, plainText as never) };
    }
  }
}
