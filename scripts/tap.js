'use strict';
/** Output of the runner scripts (e2e, queue): `ok` / `not ok` lines and the totals line. */

const fs = require('node:fs');

function say(msg) {
	process.stdout.write(`${msg}\n`);
}

/** An error as one line (for `not ok - name: reason`). */
function oneLine(err) {
	let msg = err && err.message ? err.message : String(err);
	// fetch's "fetch failed" says why only in its cause.
	if (err && err.cause) msg += ` (${err.cause.code || err.cause.message || err.cause})`;
	return msg.replace(/\s*\n\s*/g, ' | ').slice(0, 1500);
}

/** The totals line, last; also appended to MONEY_TOTALS_FILE for .ci/run (as test/totals-reporter.js does). */
function report(passed, failed) {
	say(`${passed} passed, ${failed} failed`);
	if (process.env.MONEY_TOTALS_FILE) {
		fs.appendFileSync(process.env.MONEY_TOTALS_FILE, `${JSON.stringify({ passed, failed, skipped: 0 })}\n`);
	}
}

/** Run a runner's main(): exit with its code; an error escaping it is a failed setup. */
function runMain(main) {
	main().then(
		(code) => process.exit(code),
		(err) => {
			say(`not ok - setup: ${oneLine(err)}`);
			report(0, 1);
			process.exit(1);
		},
	);
}

module.exports = { say, oneLine, report, runMain };
