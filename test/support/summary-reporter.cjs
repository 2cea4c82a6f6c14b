// Prints one plain closing line ("N passed, N failed, N skipped") that CI tooling can read.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    console.log(`\nTests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
  }
}
module.exports = SummaryReporter;
