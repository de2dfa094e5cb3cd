import { createRunSettings, DEFAULT_MAX_TOTAL_WAIT_MINUTES } from '../../../../../../nodes/Money/helpers/create/run/createRun';

describe('createRunSettings', () => {
	const payoutOptions = { onVelocityLimit: 'fail', maxTotalWaitMinutes: 5, checkBalanceFirst: true };

	it('reads the payout Options of a payout run', () => {
		expect(createRunSettings('payout', payoutOptions, {})).toMatchObject({ onVelocityLimit: 'fail', maxTotalWaitMs: 5 * 60_000, checkBalanceFirst: true });
	});

	// A charge panel offers none of them (descriptions/createFields.ts); parameters a workflow still holds change nothing.
	it('keeps the defaults for a charge run, whatever the parameters hold', () => {
		expect(createRunSettings('charge', payoutOptions, {})).toMatchObject({ onVelocityLimit: 'wait', maxTotalWaitMs: DEFAULT_MAX_TOTAL_WAIT_MINUTES * 60_000, checkBalanceFirst: false });
		expect(createRunSettings('charge', payoutOptions, {})).toEqual(createRunSettings('charge', {}, {}));
	});
});
