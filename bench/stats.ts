export interface FigureResult {
	name: string;
	value: number | null;
	unit: string;
	/** Value relative to the figure's baseline (see `baseline`); null when the figure has none. */
	ratio: number | null;
	runs: number;
	min: number | null;
	max: number | null;
	/** What the ratio compares with, in words (printed, and kept in the JSON as an extra field). */
	baseline?: string;
	/** Why a figure could not be measured, or a caveat a reader must know. */
	note?: string;
}

export function median(values: number[]): number {
	if (values.length === 0) throw new Error('median of nothing');
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export interface Spread {
	median: number;
	min: number;
	max: number;
	runs: number;
}

export function spread(values: number[]): Spread {
	return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length };
}

/** Rounds to a precision that suits the magnitude (3 significant digits, at most 4 decimals). */
export function round(value: number): number {
	if (!Number.isFinite(value) || value === 0) return value;
	const digits = Math.max(0, Math.min(4, 2 - Math.floor(Math.log10(Math.abs(value)))));
	return Number(value.toFixed(digits));
}

/**
 * A figure whose value is the median of per-run samples. `ratioOf` turns the median into the
 * ratio to the baseline; for figures that are ratios themselves, pass the identity.
 */
export function figure(
	name: string,
	unit: string,
	samples: number[],
	options: { ratio?: (value: number) => number | null; baseline?: string; note?: string } = {},
): FigureResult {
	const stats = spread(samples);
	const ratio = options.ratio ? options.ratio(stats.median) : null;
	return {
		name,
		value: round(stats.median),
		unit,
		ratio: ratio === null ? null : round(ratio),
		runs: stats.runs,
		min: round(stats.min),
		max: round(stats.max),
		...(options.baseline ? { baseline: options.baseline } : {}),
		...(options.note ? { note: options.note } : {}),
	};
}

export function unmeasured(name: string, unit: string, note: string): FigureResult {
	return { name, value: null, unit, ratio: null, runs: 0, min: null, max: null, note };
}

const fixed = (value: number | null, decimals = 2): string => (value === null ? 'n/a' : value.toFixed(decimals));

/** `name: value unit (ratio to baseline x.xx; runs N, min .. max)` */
export function formatLine(result: FigureResult): string {
	if (result.value === null) return `${result.name}: not measured (${result.note ?? 'no reason given'})`;
	const ratio = result.ratio === null ? 'no baseline' : `ratio to ${result.baseline ?? 'baseline'} ${fixed(result.ratio)}`;
	const note = result.note ? ` [${result.note}]` : '';
	return `${result.name}: ${result.value} ${result.unit} (${ratio}; runs ${result.runs}, min ${result.min} .. max ${result.max})${note}`;
}

export function progress(message: string): void {
	process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
