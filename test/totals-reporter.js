// Prints the suite totals alone on the last line, in the form CI reads: "N passed, N failed".
class TotalsReporter {
	onRunComplete(_contexts, results) {
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		const line = `${results.numPassedTests} passed, ${failed} failed` +
			(results.numPendingTests ? `, ${results.numPendingTests} skipped` : '');
		process.stdout.write(`\n${line}\n`);
		if (process.env.MONEY_TOTALS_FILE) {
			require('fs').appendFileSync(
				process.env.MONEY_TOTALS_FILE,
				JSON.stringify({ passed: results.numPassedTests, failed, skipped: results.numPendingTests }) + '\n',
			);
		}
	}
}
module.exports = TotalsReporter;
