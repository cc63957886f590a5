/**
 * Progress of a long core operation, reported to whoever drives it (the CLI draws a bar on a
 * terminal). `total` is undefined while it is not known yet (a streamed read). Core code only
 * calls it; it never decides whether or where progress is shown.
 */
export type ProgressCallback = (done: number, total: number | undefined, label: string) => void;
