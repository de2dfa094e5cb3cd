/** Reading callgrind's output for bench/instructions.ts. */

/**
 * Work of V8 itself that lands in whichever round it happens to fall: optimising compilation,
 * deoptimisation and garbage collection (the inclusive counts of their entry points).
 */
export const ENGINE_WORK = ['v8::internal::Runtime_CompileOptimized(', 'v8::internal::Runtime_NotifyDeoptimized(', 'v8::internal::Heap::CollectGarbage('];

export interface Counted {
	total: number;
	/** The total without ENGINE_WORK: the instructions the calls themselves ran. */
	calls: number;
}

/** All instructions (Ir) of a callgrind dump, from its `summary:` (or `totals:`) line. */
export function totalOf(dump: string): number {
	const totals = /^(?:summary|totals):\s*(\d+)/m.exec(dump);
	if (!totals) throw new Error('no summary or totals line in the callgrind dump');
	return Number(totals[1]);
}

/** The instructions of ENGINE_WORK in the output of `callgrind_annotate --inclusive=yes`. */
export function engineWorkOf(annotated: string): number {
	let engine = 0;
	for (const line of annotated.split('\n')) {
		const match = /^\s*([\d,]+) \([^)]*\)\s+\?\?\?:(.*)$/.exec(line);
		if (match && ENGINE_WORK.some((name) => match[2].startsWith(name))) engine += Number(match[1].replace(/,/g, ''));
	}
	return engine;
}
