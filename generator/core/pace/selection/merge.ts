/**
 * Strict budget (PACE's `joint_top_C`): H = top round(q·C) by |ρ|, D = top C − round(q·C) by
 * leverage·|ρ|; when H and D overlap, the union is refilled from both rankings, alternating in
 * proportion q : (1−q), until it holds C distinct instances.
 */
export interface Selection {
  /** Instances (view columns) feeding the local embedding, in rank order. */
  local: Int32Array;
  /** Instances feeding the global embedding, in rank order. */
  global: Int32Array;
  /** Distinct union, ascending. */
  union: Int32Array;
}

/** Python's round(): half to even, so budgets split exactly as PACE splits them. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (Math.abs(diff - 0.5) < 1e-9) return f % 2 === 0 ? f : f + 1;
  return Math.round(x);
}

export function mergeStrictBudget(localOrder: Int32Array, globalOrder: Int32Array, budget: number, q: number): Selection {
  const nLocal = roundHalfEven(q * budget);
  const nGlobal = budget - nLocal;
  const inUnion = new Set<number>();
  const local: number[] = [];
  const global: number[] = [];
  let li = 0;
  let gi = 0;
  for (; li < localOrder.length && local.length < nLocal; li++) {
    local.push(localOrder[li] as number);
    inUnion.add(localOrder[li] as number);
  }
  for (; gi < globalOrder.length && global.length < nGlobal; gi++) {
    global.push(globalOrder[gi] as number);
    inUnion.add(globalOrder[gi] as number);
  }
  let creditLocal = 0;
  let creditGlobal = 0;
  const nextFrom = (order: Int32Array, start: number): number => {
    let i = start;
    while (i < order.length && inUnion.has(order[i] as number)) i++;
    return i;
  };
  while (inUnion.size < budget) {
    li = nextFrom(localOrder, li);
    gi = nextFrom(globalOrder, gi);
    const localLeft = li < localOrder.length && q > 0;
    const globalLeft = gi < globalOrder.length && q < 1;
    if (!localLeft && !globalLeft) break;
    creditLocal += q;
    creditGlobal += 1 - q;
    const takeLocal = localLeft && (!globalLeft || creditLocal >= creditGlobal);
    if (takeLocal) {
      creditLocal -= 1;
      local.push(localOrder[li] as number);
      inUnion.add(localOrder[li] as number);
    } else {
      creditGlobal -= 1;
      global.push(globalOrder[gi] as number);
      inUnion.add(globalOrder[gi] as number);
    }
  }
  return { local: Int32Array.from(local), global: Int32Array.from(global), union: Int32Array.from([...inUnion].sort((a, b) => a - b)) };
}
