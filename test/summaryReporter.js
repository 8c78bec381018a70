// Ends a jest run with one plain line, "jest: N passed, N failed, N skipped", that CI logs can read.
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
		process.stdout.write(
			`jest: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`,
		);
	}
}
module.exports = SummaryReporter;
