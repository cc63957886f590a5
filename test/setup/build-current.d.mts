/** Whether build/ is current with generator/ and the compiler settings (build-current.mjs). */
export function buildIsCurrent(root: string): boolean;
