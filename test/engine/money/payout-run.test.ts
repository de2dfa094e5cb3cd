import path from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../../sandbox';
import type { INode } from 'n8n-workflow';

import {
	buildWorkflow,
	CREDENTIAL_TYPE,
	credentialFromSandbox,
	type Engine,
	loadEngine,
	moneyNode,
	retryExecution,
	runMoneyNode,
	type RunResult,
	runWorkflow,
} from '../../harness/engine';
import { accepted } from '../../harness/outcome';

/**
 * Payout runs at scale (issue 15), inside real n8n-core executions against the sandbox with its
 * velocity set small: 5 payouts per rolling 2 s, the same in the credential.
 */
const VELOCITY_LIMIT = 5;
const WINDOW_SECONDS = 2;
const PACED = 'paced';
const UNPACED = 'unpaced';
/** Three payouts per window: a run of six waits a whole window after its third payout. */
const PACED_BY_THREE = 'paced-by-three';
const CONTINUE = { onError: 'continueRegularOutput' as const };
const FAST = { maxRetries: 2, retryBaseDelayMs: 5 };
const HIGH_LIMITS = { minAmount: 100, maxAmount: 5_000_000, dailyCap: 500_000_000, monthlyCap: 5_000_000_000 };

let sb: Sandbox;
let engine: Engine;

/** n8n-core's own logger: the instance its node contexts hand out as `this.logger`. */
function n8nLogger(): { info: (message: string) => void } {
	const paths = [path.dirname(require.resolve('n8n-core'))];
	const { Container } = require(require.resolve('@n8n/di', { paths }));
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths }));
	return Container.get(Logger);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rows(count: number, extra: (index: number) => IDataObject = () => ({})): INodeExecutionData[] {
	return Array.from({ length: count }, (_, index) => ({ json: { amount: 1000, currency: 'XOF', ...extra(index) } }));
}

function payoutRun(options: IDataObject = {}): IDataObject {
	return {
		resource: 'payout',
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: '={{ $json.currency }}',
		beneficiaryIdentifierType: 'gm_account',
		beneficiaryIdentifier: 'GM-1002',
		channel: 'psp-a-tg',
		beneficiaryAccountType: '',
		requireBusinessReference: false,
		options: { ...FAST, ...options },
	};
}

async function run(
	parameters: IDataObject,
	items: INodeExecutionData[],
	extra: { continueOnFail?: boolean; credentialId?: string; sendDataToUI?: (type: string, data: unknown) => void } = {},
): Promise<RunResult> {
	return await runMoneyNode(engine, {
		parameters: parameters as never,
		items,
		credentialId: extra.credentialId ?? PACED,
		settings: extra.continueOnFail === false ? undefined : CONTINUE,
		sendDataToUI: extra.sendDataToUI,
	});
}

const outputOf = (result: RunResult) => result.output('Money').map((item) => item.json);

async function payoutRequests(): Promise<number> {
	return (await sb.control.counters()).requests.post_money_v1_payout ?? 0;
}

/** Today's XOF payouts that count against the daily cap. */
async function usedToday(): Promise<number> {
	const ledger = await sb.control.ledger();
	return ledger.payouts
		.filter((entry) => entry.amount.currency === 'XOF' && !['FAILED', 'CANCELLED', 'REVERSED'].includes(String(entry.status.label)))
		.reduce((sum, entry) => sum - Number(entry.amount.value), 0);
}

beforeAll(async () => {
	// The second client (another merchant) has the first one's PIN: a credential edited to it differs in its client only.
	sb = await startSandbox({ finalizeAfterMs: null, config: { clients: [{}, { pin: '1234' }] } });
	engine = await loadEngine();
	const credential = { velocityLimit: VELOCITY_LIMIT, velocityWindowSeconds: WINDOW_SECONDS };
	engine.credentials.set(PACED, CREDENTIAL_TYPE, credentialFromSandbox(sb.info, credential));
	engine.credentials.set(UNPACED, CREDENTIAL_TYPE, credentialFromSandbox(sb.info, { velocityLimit: 100_000 }));
	engine.credentials.set(PACED_BY_THREE, CREDENTIAL_TYPE, credentialFromSandbox(sb.info, { velocityLimit: 3, velocityWindowSeconds: 3 }));
});

beforeEach(async () => {
	await sb.control.updateClient(sb.info.clientId, {
		limits: { ...HIGH_LIMITS, velocityLimit: VELOCITY_LIMIT, velocityWindowSeconds: WINDOW_SECONDS },
		balance: 100_000_000,
	});
	// Earlier tests' payouts leave the sandbox's rolling window.
	await sleep(WINDOW_SECONDS * 1000 + 100);
	await sb.control.resetCounters();
});

afterAll(async () => {
	await sb?.close();
});

describe('velocity pacing (on by default)', () => {
	it('completes a run of 30 payouts at 5 per 2 s: 30 created, no LIMIT_EXCEEDED, no refused request', async () => {
		const started = Date.now();
		const output = outputOf(await run(payoutRun(), rows(30)));
		const elapsed = Date.now() - started;

		expect(output).toHaveLength(30);
		expect(output.filter((item) => accepted(item) && typeof item.reference === 'string')).toHaveLength(30);
		expect(output.filter((item) => item.error_code === 'LIMIT_EXCEEDED')).toHaveLength(0);
		const counters = await sb.control.counters();
		expect(counters.requests.post_money_v1_payout).toBe(30);
		expect(counters.rejected).toBe(0);
		// It cannot have gone faster than the limit allows: 30 payouts need 5 full windows.
		expect(elapsed).toBeGreaterThanOrEqual(Math.floor(29 / VELOCITY_LIMIT) * WINDOW_SECONDS * 1000);
	}, 60_000);

	it('waits out another workflow paying on the same client, resending with the same idempotency key', async () => {
		const [first, second] = await Promise.all([run(payoutRun(), rows(12)), run(payoutRun(), rows(12))]);
		const output = [...outputOf(first), ...outputOf(second)];

		expect(output.filter(accepted)).toHaveLength(24);
		const counters = await sb.control.counters();
		// The two runs together exceed the limit: some creates were refused, waited out and resent...
		expect(counters.rejected).toBeGreaterThan(0);
		expect(counters.requests.post_money_v1_payout).toBe(24 + counters.rejected);
		// ...and every key moved money once.
		const keys = output.map((item) => String(item.idempotency_key));
		expect(new Set(keys).size).toBe(24);
		for (const key of keys) expect(counters.createsByIdempotencyKey[key]).toBe(1);
	}, 90_000);

	it('fails the remaining items without a request once the next wait would pass Maximum Total Wait', async () => {
		const output = outputOf(await run(payoutRun({ maxTotalWaitMinutes: 0.01 }), rows(8)));

		expect(output.slice(0, 5).every(accepted)).toBe(true);
		for (const item of output.slice(5)) {
			expect(item).toMatchObject({ outcome: 'failed', attempted: false, idempotency_key: expect.any(String) });
			expect(String(item.error)).toContain('Maximum Total Wait');
		}
		expect(await payoutRequests()).toBe(5);
	});
});

describe('caps stop the run early', () => {
	it('fails items 12-30 when the daily cap is reached at item 12: one refused request, the rest not attempted', async () => {
		await sb.control.updateClient(sb.info.clientId, { limits: { velocityLimit: 1000, dailyCap: (await usedToday()) + 11 * 1000 } });
		const output = outputOf(await run(payoutRun(), rows(30), { credentialId: UNPACED }));

		expect(output.slice(0, 11).every(accepted)).toBe(true);
		expect(output[11]).toMatchObject({ outcome: 'failed', error_code: 'LIMIT_EXCEEDED', httpCode: 403, idempotency_key: expect.any(String) });
		expect(output[11].attempted).toBeUndefined();
		for (const item of output.slice(12)) {
			expect(item).toMatchObject({ outcome: 'failed', attempted: false, error_code: 'LIMIT_EXCEEDED', httpCode: null });
			expect(String(item.error)).toMatch(/daily payout cap of \d+ XOF was reached at item 12/);
			expect(item.idempotency_key).toEqual(expect.any(String));
		}
		expect(await payoutRequests()).toBe(12);
	});

	it('without Continue On Fail, stops at the capped item and says how many were not attempted', async () => {
		await sb.control.updateClient(sb.info.clientId, { limits: { velocityLimit: 1000, dailyCap: (await usedToday()) + 11 * 1000 } });
		const result = await run(payoutRun(), rows(30), { credentialId: UNPACED, continueOnFail: false });

		expect(result.error()?.message).toMatch(/LIMIT_EXCEEDED.*daily payout cap.*reached at item 12.*18 later items were not attempted/);
		expect(await payoutRequests()).toBe(12);
	});

	it('stops the payouts of a currency after INSUFFICIENT_FUNDS, naming the shortfall; another currency goes on', async () => {
		await sb.control.updateClient(sb.info.clientId, { limits: { velocityLimit: 1000 }, balance: 3500 });
		const items = rows(10, (index) => ({ currency: index % 2 === 0 ? 'XOF' : 'XAF' }));
		const output = outputOf(await run(payoutRun(), items, { credentialId: UNPACED }));

		expect(output.map((item) => (accepted(item) ? 'paid' : item.attempted === false ? 'skipped' : item.error_code))).toEqual([
			'paid', 'paid', 'paid', 'paid', 'paid', 'paid', 'INSUFFICIENT_FUNDS', 'paid', 'skipped', 'paid',
		]);
		expect(String(output[8].error)).toContain('the wallet had 500 XOF available at item 7; this payout of 1000 XOF is short by 500 XOF');
		expect(await payoutRequests()).toBe(9);
	});
});

describe('Check Balance First', () => {
	it('refuses a run that would overdraw, moving nothing, naming total, balance and shortfall', async () => {
		await sb.control.updateClient(sb.info.clientId, { balance: 10_000 });
		const payoutsBefore = (await sb.control.ledger()).payouts.length;
		const output = outputOf(await run(payoutRun({ checkBalanceFirst: true }), rows(30)));

		expect(output).toHaveLength(30);
		for (const item of output) {
			expect(item).toMatchObject({ outcome: 'failed', attempted: false, error_code: 'RUN_EXCEEDS_BALANCE' });
			expect(item.details).toMatchObject({ total: 30_000, available_balance: 10_000, shortfall: 20_000, currency: 'XOF' });
		}
		expect(String(output[0].error)).toContain('30 payouts total 30000 XOF, the wallet WAL-XOF-100001 has 10000 XOF available, short by 20000 XOF');
		const counters = await sb.control.counters();
		expect(counters.requests.get_money_v1_account).toBe(1);
		expect(counters.requests.post_money_v1_payout).toBeUndefined();
		expect((await sb.control.ledger()).payouts).toHaveLength(payoutsBefore);
		expect((await sb.control.ledger()).balance.value).toBe(10_000);
	});

	it('fails the node without Continue On Fail, and lets a run that fits go through', async () => {
		await sb.control.updateClient(sb.info.clientId, { balance: 3000 });
		const refused = await run(payoutRun({ checkBalanceFirst: true }), rows(4), { continueOnFail: false });
		expect(refused.error()?.message).toContain('short by 1000 XOF');
		expect(await payoutRequests()).toBe(0);

		const paid = outputOf(await run(payoutRun({ checkBalanceFirst: true }), rows(3), { continueOnFail: false }));
		expect(paid.every(accepted)).toBe(true);
		const counters = await sb.control.counters();
		expect(counters.requests.get_money_v1_account).toBe(2);
		expect(counters.requests.post_money_v1_payout).toBe(3);
	});
});

describe('Check Balance First counts only what can still move money', () => {
	const trigger: INode = { id: 'rows', name: 'Rows', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };

	/** A wallet that covers the whole run when it is checked, then runs dry after the third payout (another workflow spent it). */
	async function runThatRunsDry(parameters: IDataObject, amounts: number[], extra: IDataObject[] = []) {
		const money = moneyNode({ parameters: parameters as never, credentialId: PACED_BY_THREE });
		const workflow = buildWorkflow(engine, { nodes: [trigger, money], connections: { Rows: { main: [[{ node: 'Money', type: 'main', index: 0 }]] } } });
		const items = amounts.map((amount, index) => ({ json: { amount, currency: 'XOF', ...(extra[index] ?? {}) } }));
		await sb.control.updateClient(sb.info.clientId, { balance: amounts.reduce((sum, amount) => sum + amount, 0) });
		const running = runWorkflow(engine, workflow, { items, mode: 'trigger' });
		// The node waits a whole window (3 s) before the fourth payout: the wallet is drained meanwhile.
		for (;;) {
			const paid = (await sb.control.ledger()).payouts.filter((entry) => amounts.slice(0, 3).includes(-entry.amount.value));
			if (paid.length === 3) break;
			await sleep(20);
		}
		await sb.control.updateClient(sb.info.clientId, { balance: 100 });
		const failed = await running;
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
		return { workflow, failed };
	}

	it('after the wallet ran dry mid-run and was topped up by what is left to pay, a Retry pays the remaining rows', async () => {
		const amounts = [5101, 5102, 5103, 5104, 5105, 5106];
		const { workflow, failed } = await runThatRunsDry(payoutRun({ checkBalanceFirst: true }), amounts);
		await sb.control.updateClient(sb.info.clientId, { balance: 5104 + 5105 + 5106 });

		const retried = await retryExecution(engine, workflow, failed);
		expect(retried.error()).toBeUndefined();
		expect(outputOf(retried).map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'replayed', 'created', 'created', 'created']);
		const paid = (await sb.control.ledger()).payouts.filter((entry) => amounts.includes(-entry.amount.value));
		expect(paid.map((entry) => -entry.amount.value).sort()).toEqual(amounts);
		expect((await sb.control.ledger()).balance.value).toBe(0);
	});

	it('says plainly that a new execution counts the rows a Business Reference already paid, and how to recover', async () => {
		const amounts = [5201, 5202, 5203, 5204, 5205, 5206];
		const references = amounts.map((amount) => ({ order: `ord-${amount}-${Date.now()}` }));
		await runThatRunsDry({ ...payoutRun({ checkBalanceFirst: true }), businessReference: '={{ $json.order }}' }, amounts, references);
		await sb.control.updateClient(sb.info.clientId, { balance: 5204 + 5205 + 5206 });

		const again = await runMoneyNode(engine, {
			parameters: { ...payoutRun({ checkBalanceFirst: true }), businessReference: '={{ $json.order }}' } as never,
			items: amounts.map((amount, index) => ({ json: { amount, currency: 'XOF', ...references[index] } })),
			credentialId: UNPACED,
			mode: 'trigger',
		});
		const message = String(again.error()?.message);
		const description = String(again.error()?.description);
		expect(message).toContain('6 payouts total 31221 XOF');
		expect(description).toMatch(/counts every row of this execution.*Business Reference.*paid/);
		expect(description).toMatch(/Retry/);
	});
});

describe('what a replayed answer means', () => {
	it('a payout committed by an attempt whose answer was lost is created now, and takes its room in the velocity window', async () => {
		await sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });
		const output = outputOf(await run(payoutRun(), rows(VELOCITY_LIMIT + 1), { continueOnFail: false }));
		await sb.control.clearFaults();
		expect(output.map((item) => item.outcome)).toEqual(Array(VELOCITY_LIMIT + 1).fill('created'));
		const counters = await sb.control.counters();
		expect(counters.rejected).toBe(0);
		expect(counters.requests.post_money_v1_payout).toBe(VELOCITY_LIMIT + 2);
	});
});

describe('knowing what happened', () => {
	it('logs progress every 10 items, shows it in the editor in a manual run, and its last line above the output', async () => {
		await sb.control.updateClient(sb.info.clientId, { limits: { velocityLimit: 1000 } });
		const info = jest.spyOn(n8nLogger(), 'info');
		const uiMessages: unknown[] = [];
		try {
			const result = await run(payoutRun(), rows(12), { credentialId: UNPACED, sendDataToUI: (_type, data) => uiMessages.push(data) });
			const lines = info.mock.calls.map((call) => String(call[0])).filter((line) => line.startsWith('Money payout run'));
			expect(lines).toEqual([
				'Money payout run: 10 of 12 items done (10 sent, 0 failed)',
				'Money payout run: 12 of 12 items done (12 sent, 0 failed)',
			]);
			expect(JSON.stringify(uiMessages)).toContain('12 of 12 items done');
			expect(result.run.data.resultData.runData.Money[0].hints).toEqual([{ message: 'Money payout run: 12 of 12 items done (12 sent, 0 failed)', location: 'outputPane' }]);
		} finally {
			info.mockRestore();
		}
	});
});

describe('a credential edited while the run waits for the velocity limit', () => {
	it('changes nothing in that node run: every row goes to the client it started with, and a Retry pays no row twice', async () => {
		const second = sb.info.otherClients[0];
		const EDITED = 'edited-mid-run';
		const paced = { velocityLimit: 2, velocityWindowSeconds: 2 };
		engine.credentials.set(EDITED, CREDENTIAL_TYPE, credentialFromSandbox(sb.info, paced));
		const amounts = [5301, 5302, 5303, 900_304];
		const trigger: INode = { id: 'rows', name: 'Rows', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };
		const money = moneyNode({ parameters: payoutRun() as never, credentialId: EDITED });
		const workflow = buildWorkflow(engine, { nodes: [trigger, money], connections: { Rows: { main: [[{ node: 'Money', type: 'main', index: 0 }]] } } });
		const items = amounts.map((amount) => ({ json: { amount, currency: 'XOF' } }));
		await sb.control.updateClient(sb.info.clientId, { limits: { ...HIGH_LIMITS, velocityLimit: 1000 }, balance: 5301 + 5302 + 5303 + 100 });
		await sb.control.updateClient(second.clientId, { limits: { ...HIGH_LIMITS, velocityLimit: 1000 }, balance: 5303 + 100 });
		const payoutsOf = async (clientId: string) => (await sb.control.ledger(clientId)).payouts.filter((entry) => amounts.includes(-entry.amount.value)).map((entry) => -entry.amount.value);

		const running = runWorkflow(engine, workflow, { items, mode: 'trigger' });
		// Rows 1-2 fill the credential's window (2 per 2 s); the node waits before row 3: the user edits the credential meanwhile.
		while ((await payoutsOf(sb.info.clientId)).length < 2) await sleep(20);
		engine.credentials.set(EDITED, CREDENTIAL_TYPE, credentialFromSandbox({ ...sb.info, ...second }, paced));
		const failed = await running;
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');

		// The user puts the credential back, tops the first client up and retries.
		engine.credentials.set(EDITED, CREDENTIAL_TYPE, credentialFromSandbox(sb.info, paced));
		await sb.control.updateClient(sb.info.clientId, { balance: 1_000_000 });
		const retried = await retryExecution(engine, workflow, failed);
		const paid = [...(await payoutsOf(sb.info.clientId)), ...(await payoutsOf(second.clientId))];
		expect(amounts.filter((amount) => paid.filter((value) => value === amount).length > 1)).toEqual([]);
		expect(retried.error()).toBeUndefined();
		expect(await payoutsOf(second.clientId)).toEqual([]);
	});
});
