/**
 * What every script-run suite prints (e2e, ui, queue, scan, fresh clone): lines `ok - name` /
 * `not ok - name: reason`, and the totals line `N passed, N failed` last, also appended to
 * MONEY_TOTALS_FILE for .ci/run (as test/totals-reporter.js does for Jest).
 */

import * as fs from 'node:fs';

export function say(msg = ''): void {
	process.stdout.write(`${msg}\n`);
}

/** An error as one line (a reason after `not ok - name:`). */
export function oneLine(err: unknown, max = 1500): string {
	const e = err as { message?: string; cause?: { code?: string; message?: string } } | null | undefined;
	let msg = e && e.message ? e.message : String(err);
	// fetch's "fetch failed" says why only in its cause.
	if (e && e.cause) msg += ` (${e.cause.code || e.cause.message || e.cause})`;
	return msg.replace(/\s*\n\s*/g, ' | ').slice(0, max);
}

/** The totals line, printed last, and appended to MONEY_TOTALS_FILE. */
export function report(passed: number, failed: number): void {
	say(`${passed} passed, ${failed} failed`);
	if (process.env.MONEY_TOTALS_FILE) {
		fs.appendFileSync(process.env.MONEY_TOTALS_FILE, `${JSON.stringify({ passed, failed, skipped: 0 })}\n`);
	}
}

/** A setup failure before any check ran: counted as one failure, and the process ends. */
export function failSetup(err: unknown): never {
	say(`not ok - setup: ${oneLine(err)}`);
	report(0, 1);
	process.exit(1);
}

/** Run `main` (resolving to an exit code) and exit with it; a throw is a setup failure. */
export function runMain(main: () => Promise<number>): void {
	main().then((code) => process.exit(code), failSetup);
}

/** The message of a thrown value, whatever was thrown. */
export function messageOf(err: unknown): string {
	return err && (err as Error).message ? (err as Error).message : String(err);
}

/** Checks that pass when their list of problems is empty (scan, fresh clone). */
export function createChecks() {
	const results = { passed: 0, failed: 0 };
	return {
		results,
		/** One check: passed when `problems` is empty. */
		check(name: string, problems: string[]): void {
			if (problems.length === 0) {
				results.passed++;
				say(`ok - ${name}`);
			} else {
				results.failed++;
				say(`not ok - ${name}: ${problems.join('; ')}`);
			}
		},
		/** Prints the totals line (last) and returns the exit code. */
		report(): number {
			report(results.passed, results.failed);
			return results.failed === 0 ? 0 : 1;
		},
	};
}
