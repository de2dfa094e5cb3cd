import { progressLine, shouldReport } from '../../../../../../nodes/Money/helpers/create/run/progress';

describe('run progress', () => {
	it('reports every 10 items and at the end, on runs of 10 or more', () => {
		const reported: number[] = [];
		let last = 0;
		for (const done of [1, 2, 9, 11, 19, 20, 25]) {
			if (shouldReport(done, last, 25)) reported.push((last = done));
		}
		expect(reported).toEqual([11, 20, 25]);
		expect(shouldReport(5, 0, 5)).toBe(false);
		expect(shouldReport(10, 10, 30)).toBe(false);
	});

	it('says what was sent, failed, skipped and waited', () => {
		expect(progressLine('payout', 10, 60, { created: 9, failed: 1, notAttempted: 0, waitedMs: 0 })).toBe(
			'Money payout run: 10 of 60 items done (9 sent, 1 failed)',
		);
		expect(progressLine('payout', 60, 60, { created: 40, failed: 1, notAttempted: 19, waitedMs: 61_400 })).toBe(
			'Money payout run: 60 of 60 items done (40 sent, 1 failed, 19 not attempted); waited 61 s for the velocity limit',
		);
	});
});
