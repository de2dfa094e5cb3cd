import type { IDataObject } from 'n8n-workflow';

import { CREDENTIAL_TYPE, credentialFromSandbox, runMoneyNode, type RunResult } from '../../harness/engine';
import { CONTINUE, useSandboxEngine } from './setup';

/*
 * A stopped execution (the editor's Stop, `POST /rest/executions/:id/stop`) while the Money node
 * waits: nothing more is sent, every item not sent says `attempted: false`, the run says it was
 * cancelled. n8n's server records the execution as it was when stopped, so what the node returns
 * afterwards is seen here and in the editor; the e2e checks of test/e2e/cancel.ts show the API's
 * side and the log in a real server, on both n8n versions.
 */
const env = useSandboxEngine({ credential: { velocityLimit: 1000 } });
const SLOW = 'slow';

beforeAll(() => {
	env.engine.credentials.set(SLOW, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { velocityLimit: 2, velocityWindowSeconds: 60 }));
});

beforeEach(async () => {
	await env.sb.control.clearFaults();
	await env.sb.control.updateClient(env.sb.info.clientId, {
		limits: { minAmount: 100, maxAmount: 5_000_000, velocityLimit: 1000, dailyCap: 500_000_000, monthlyCap: 5_000_000_000 },
		balance: 100_000_000,
	});
});

const payoutRequests = async () => (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;

async function until(condition: () => Promise<boolean>): Promise<void> {
	while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A payout run of `count` rows, stopped once `stopWhen` holds; what the node returned and what the API got. */
async function stoppedRun(
	count: number,
	options: IDataObject,
	stopWhen: (sentBefore: number) => Promise<boolean>,
	extra: { credentialId?: string; continueOnFail?: boolean; retryOnFail?: boolean } = {},
) {
	const sentBefore = await payoutRequests();
	let stopped: Promise<void> | undefined;
	const started = Date.now();
	const result: RunResult = await runMoneyNode(env.engine, {
		parameters: {
			resource: 'payout',
			operation: 'create',
			amount: '={{ $json.amount }}',
			currency: 'XOF',
			beneficiaryIdentifierType: 'gm_account',
			beneficiaryIdentifier: 'GM-1002',
			channel: 'psp-a-tg',
			beneficiaryAccountType: '',
			requireBusinessReference: false,
			options,
		} as never,
		items: Array.from({ length: count }, (_, index) => ({ json: { amount: 1000 + index } })),
		credentialId: extra.credentialId,
		settings: extra.retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : extra.continueOnFail === false ? undefined : CONTINUE,
		mode: 'trigger',
		onStart: (stop) => {
			stopped = until(() => stopWhen(sentBefore)).then(stop);
		},
	});
	await stopped;
	const items = result.output('Money').map((item) => item.json);
	return { result, items, seconds: (Date.now() - started) / 1000, sent: (await payoutRequests()) - sentBefore };
}

const sentAtLeast = (count: number) => async (sentBefore: number) => (await payoutRequests()) - sentBefore >= count;
const afterMs = (ms: number, condition: (sentBefore: number) => Promise<boolean>) => async (sentBefore: number) => {
	if (!(await condition(sentBefore))) return false;
	await new Promise((resolve) => setTimeout(resolve, ms));
	return true;
};

describe('a cancelled execution stops the money', () => {
	it('during a velocity wait (On Error = Continue): nothing more is sent, the rest say attempted: false', async () => {
		const { items, sent, seconds } = await stoppedRun(5, { maxRetries: 0 }, afterMs(200, sentAtLeast(2)), { credentialId: SLOW });
		expect(sent).toBe(2);
		expect(seconds).toBeLessThan(30); // n8n 2.x interrupts the 60 s wait at once
		expect(items.map((item) => item.outcome)).toEqual(['created', 'created', 'failed', 'failed', 'failed']);
		for (const item of items.slice(2)) expect(item).toMatchObject({ attempted: false, cancelled: true });
		expect(String(items[2].error)).toContain('waited for the velocity limit; it was not sent');
	});

	it('without Continue On Fail, the node fails saying how many items were not sent', async () => {
		const { result, sent } = await stoppedRun(5, { maxRetries: 0 }, afterMs(200, sentAtLeast(2)), { credentialId: SLOW, continueOnFail: false });
		expect(sent).toBe(2);
		const taskError = result.run.data.resultData.runData.Money?.[0]?.error;
		expect(taskError?.message).toBe('Money payout run: the execution was cancelled; 3 of 5 items not sent (items 3-5)');
	});

	it('with Retry On Fail, the tries n8n makes after the stop send nothing and do not rewrite what was sent', async () => {
		const { result, sent } = await stoppedRun(5, { maxRetries: 0 }, afterMs(200, sentAtLeast(2)), { credentialId: SLOW, retryOnFail: true });
		expect(sent).toBe(2);
		const taskError = result.run.data.resultData.runData.Money?.[0]?.error;
		expect(taskError?.message).toContain('cancelled before this run of the node began; nothing was sent in it');
	});

	it('during the wait for a final status: the payout made stays a success item that says the wait was cancelled, the next is not sent', async () => {
		const { items, sent } = await stoppedRun(3, { maxRetries: 0, waitForFinalStatus: true, pollIntervalMs: 200, waitTimeoutSeconds: 60 }, afterMs(500, sentAtLeast(1)));
		expect(sent).toBe(1);
		expect(items[0]).toMatchObject({ outcome: 'created', final_status_reached: false, status: 'PENDING', wait_cancelled: true });
		expect(items[0].wait_error).toBeUndefined();
		for (const item of items.slice(1)) expect(item).toMatchObject({ outcome: 'failed', attempted: false, cancelled: true });
	});

	it('during the backoff before a resend: not resent (the item says it may have reached the API), the next not sent', async () => {
		await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: '503', count: 1 });
		const { items, sent } = await stoppedRun(2, { maxRetries: 3, retryBaseDelayMs: 20_000 }, afterMs(200, sentAtLeast(1)));
		expect(sent).toBe(1);
		expect(items[0]).toMatchObject({ outcome: 'failed', cancelled: true });
		expect(items[0].attempted).toBeUndefined();
		expect(String(items[0].error)).toContain('before this request was sent again');
		expect(items[1]).toMatchObject({ outcome: 'failed', attempted: false, cancelled: true });
	});
});
