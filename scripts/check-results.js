'use strict';
/**
 * The `ok - name` / `not ok - name: why` lines and the closing `N passed, N failed` totals of the
 * script-run suites (scan, fresh clone), with the totals appended to MONEY_TOTALS_FILE for .ci/run
 * as test/totals-reporter.js does for Jest.
 */

const fs = require('node:fs');

function say(msg) {
	process.stdout.write(`${msg}\n`);
}

function createChecks() {
	const results = { passed: 0, failed: 0 };
	return {
		results,
		/** One check: passed when `problems` is empty. */
		check(name, problems) {
			if (problems.length === 0) {
				results.passed++;
				say(`ok - ${name}`);
			} else {
				results.failed++;
				say(`not ok - ${name}: ${problems.join('; ')}`);
			}
		},
		/** Prints the totals line (last) and returns the exit code. */
		report() {
			say(`${results.passed} passed, ${results.failed} failed`);
			if (process.env.MONEY_TOTALS_FILE) {
				fs.appendFileSync(process.env.MONEY_TOTALS_FILE, `${JSON.stringify({ ...results, skipped: 0 })}\n`);
			}
			return results.failed === 0 ? 0 : 1;
		},
	};
}

module.exports = { say, createChecks };
