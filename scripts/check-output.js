'use strict';
/**
 * Output shared by the runners of real-server checks (scripts/e2e.js, scripts/ui.js, scripts/test-queue.js): lines
 * `ok - name` / `not ok - name: reason`, and the totals line `N passed, N failed` last, also
 * appended to MONEY_TOTALS_FILE for .ci/run (as test/totals-reporter.js does for jest).
 */

const fs = require('node:fs');

function say(msg = '') {
	process.stdout.write(`${msg}\n`);
}

/** An error as one line (a reason after `not ok - name:`). */
function oneLine(err, max = 1500) {
	let msg = err && err.message ? err.message : String(err);
	// fetch's "fetch failed" says why only in its cause.
	if (err && err.cause) msg += ` (${err.cause.code || err.cause.message || err.cause})`;
	return msg.replace(/\s*\n\s*/g, ' | ').slice(0, max);
}

function report(passed, failed) {
	say(`${passed} passed, ${failed} failed`);
	if (process.env.MONEY_TOTALS_FILE) {
		fs.appendFileSync(process.env.MONEY_TOTALS_FILE, `${JSON.stringify({ passed, failed, skipped: 0 })}\n`);
	}
}

/** A setup failure before any check ran: counted as one failure, and the process ends. */
function failSetup(err) {
	say(`not ok - setup: ${oneLine(err)}`);
	report(0, 1);
	process.exit(1);
}

/** Run `main` (resolving to an exit code) and exit with it; a throw is a setup failure. */
function runMain(main) {
	main().then((code) => process.exit(code), failSetup);
}

module.exports = { say, oneLine, report, failSetup, runMain };
