import type { IExecuteFunctions } from 'n8n-workflow';

/** A progress line every this many items, and at the last one, on runs of at least that size. */
const PROGRESS_EVERY = 10;

export interface RunCounts {
	created: number;
	failed: number;
	notAttempted: number;
	waitedMs: number;
}

export function progressLine(resource: string, done: number, total: number, counts: RunCounts): string {
	const waited = counts.waitedMs > 0 ? `; waited ${Math.round(counts.waitedMs / 1000)} s for the velocity limit` : '';
	const skipped = counts.notAttempted > 0 ? `, ${counts.notAttempted} not attempted` : '';
	return `Money ${resource} run: ${done} of ${total} items done (${counts.created} sent, ${counts.failed} failed${skipped})${waited}`;
}

/** "45 s", "10 min", "2 h 5 min". */
export function durationText(ms: number): string {
	if (ms < 120_000) return `${Math.ceil(ms / 1000)} s`;
	const minutes = Math.round(ms / 60_000);
	return minutes < 120 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** True when `done` crosses a multiple of PROGRESS_EVERY past the last report, or ends the run. */
export function shouldReport(done: number, reported: number, total: number): boolean {
	if (total < PROGRESS_EVERY || done <= reported) return false;
	return done === total || Math.floor(done / PROGRESS_EVERY) > Math.floor(reported / PROGRESS_EVERY);
}

/** A run's last line also shows above the node's output in the editor, on runs that reported progress or waited. */
export function shouldSummarise(done: number, total: number, counts: RunCounts): boolean {
	return done === total && (total >= PROGRESS_EVERY || counts.waitedMs > 0);
}

/** Above the node's output in the editor, after the run (n8n's execution hints). */
export function summarise(context: IExecuteFunctions, line: string): void {
	context.addExecutionHints({ message: line, location: 'outputPane' });
}

/**
 * To n8n's log, and in a manual run to the editor's browser console: `sendMessageToUI` is the one
 * channel a node has to the editor, and n8n delivers it in manual mode only.
 */
export function announce(context: IExecuteFunctions, line: string): void {
	context.logger.info(line);
	if (context.getMode() === 'manual' && typeof context.sendMessageToUI === 'function') context.sendMessageToUI(line);
}
