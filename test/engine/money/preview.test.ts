import type { IConnections, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, retryExecution, type RunResult, runWorkflow } from '../../harness/engine';
import { useSandboxEngine } from './setup';

/**
 * Preview Only (issue 31 item 8): every row checked as the create checks it, nothing that moves
 * money sent, nothing written to the node's memory; the verdicts are what the real run then does.
 */

const env = useSandboxEngine();
/** Two payouts per minute: a third payout of the run would wait past a Maximum Total Wait of half a minute. */
const SLOW = 'slow-velocity';
const CONTINUE = { onError: 'continueRegularOutput' as const };

beforeAll(() => {
	env.engine.credentials.set(SLOW, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { velocityLimit: 2, velocityWindowSeconds: 60 }));
});

beforeEach(async () => {
	await env.sb.control.updateClient(env.sb.info.clientId, { balance: 100_000_000, limits: { velocityLimit: 1000 } });
	await env.sb.control.resetCounters();
});

const trigger: INode = { id: 'trigger', name: 'Start', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };

function chain(nodes: INode[]): IConnections {
	return { [nodes[0].name]: { main: [[{ node: nodes[1].name, type: 'main', index: 0 }]] } };
}

function payoutParameters(preview: boolean, extra: IDataObject = {}): IDataObject {
	return {
		resource: 'payout',
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: 'XOF',
		beneficiaryIdentifierType: 'gm_account',
		beneficiaryIdentifier: '={{ $json.identifier }}',
		channel: 'psp-a-tg',
		beneficiaryAccountType: '',
		businessReference: '={{ $json.ref }}',
		preview,
		options: { maxRetries: 0, retryBaseDelayMs: 2, maxTotalWaitMinutes: 0.5 },
		...extra,
	};
}

function workflowWith(parameters: IDataObject, credentialId = SLOW) {
	const money = moneyNode({ parameters: parameters as never, credentialId, settings: CONTINUE });
	return buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
}

const items = (run: string, entries: Array<[string, string | number, string?]>): INodeExecutionData[] =>
	entries.map(([ref, amount, identifier]) => ({ json: { ref: ref === '' ? '' : `${run}-${ref}`, amount, identifier: identifier ?? 'GM-1002' } }));

const outputOf = (result: RunResult): IDataObject[] => result.output('Money').map((item) => item.json);

async function payoutPosts(): Promise<number> {
	return (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
}

/** What the real run did with each row, in the words of a preview. */
function asVerdict(item: IDataObject): IDataObject {
	return item.outcome === 'failed' ? { verdict: 'would refuse', reason: item.error } : { verdict: 'would send', reason: null };
}

function hintsOf(result: RunResult): string[] {
	const hints = (result.run.data.resultData.runData.Money?.[0]?.hints ?? []) as Array<{ message: string }>;
	return hints.map((hint) => hint.message);
}

describe('Preview Only', () => {
	it('gives each row its verdict (good, a bad amount, over the run cap), sends no create, and the real run then does what it said', async () => {
		const sheet = items(`sheet-${Date.now()}`, [['1', 1000], ['2', 'abc'], ['3', 1500], ['4', 1000], ['5', 500]]);

		const preview = await runWorkflow(env.engine, workflowWith(payoutParameters(true)), { items: sheet, mode: 'trigger' });
		expect(preview.error()).toBeUndefined();
		const verdicts = outputOf(preview);
		expect(verdicts.map((item) => item.verdict)).toEqual(['would send', 'would refuse', 'would send', 'would refuse', 'would refuse']);
		expect(String(verdicts[1].reason)).toContain('Amount');
		expect(String(verdicts[3].reason)).toContain('Maximum Total Wait');
		expect(verdicts[0]).toMatchObject({ preview: true, amount: 1000, business_reference: String(sheet[0].json.ref), sends_after_seconds: 0 });
		expect(result0PairedItems(preview)).toEqual([0, 1, 2, 3, 4]);
		expect(await payoutPosts()).toBe(0);
		const hints = hintsOf(preview);
		expect(hints.join('\n')).toContain('2 of 5 rows would be sent, 3 refused (items 2, 4, 5)');
		expect(hints.join('\n')).toMatch(/total 2500 XOF; wallet \S+ has 100000000 XOF available, which covers them/);
		expect(hints.join('\n')).toContain('velocity limit of 2 per 60 s');
		// Nothing of the run is kept in the node's memory but the lost-run verdict (a later Retry reads it: no run was lost).
		expect(preview.run.data.executionData?.contextData['node:Money'] ?? {}).toEqual({ moneyReplaysLostRun: false });

		const real = await runWorkflow(env.engine, workflowWith(payoutParameters(false)), { items: sheet, mode: 'trigger' });
		expect(outputOf(real).map(asVerdict)).toEqual(verdicts.map(({ verdict, reason }) => ({ verdict, reason })));
		expect(await payoutPosts()).toBe(2);
	});

	it('refuses every row of a sheet whose Business Reference is used twice for different payouts, as the real run does', async () => {
		const sheet = items(`dup-${Date.now()}`, [['1', 1000], ['2', 2000], ['1', 3000]]);
		const preview = outputOf(await runWorkflow(env.engine, workflowWith(payoutParameters(true)), { items: sheet, mode: 'trigger' }));
		expect(preview.map((item) => item.verdict)).toEqual(['would refuse', 'would refuse', 'would refuse']);
		expect(String(preview[0].reason)).toContain('is shared by items 1 and 3');

		const real = outputOf(await runWorkflow(env.engine, workflowWith(payoutParameters(false)), { items: sheet, mode: 'trigger' }));
		expect(real.map(asVerdict)).toEqual(preview.map(({ verdict, reason }) => ({ verdict, reason })));
		expect(await payoutPosts()).toBe(0);
	});

	it('a charge sheet: verdicts and totals, no create sent, no account read', async () => {
		const sheet = items(`charge-${Date.now()}`, [['1', 2500, 'GM-1001'], ['2', 0, 'GM-1001']]);
		const { beneficiaryIdentifierType, beneficiaryIdentifier, beneficiaryAccountType, ...common } = payoutParameters(true);
		const parameters = { ...common, resource: 'charge', payerIdentifierType: beneficiaryIdentifierType, payerIdentifier: beneficiaryIdentifier, payerAccountType: beneficiaryAccountType };
		const preview = await runWorkflow(env.engine, workflowWith(parameters, CREDENTIAL_ID), { items: sheet, mode: 'trigger' });
		expect(outputOf(preview).map((item) => item.verdict)).toEqual(['would send', 'would refuse']);
		expect(outputOf(preview)[0]).not.toHaveProperty('sends_after_seconds');
		const counters = await env.sb.control.counters();
		expect([counters.requests.post_money_v1_charge ?? 0, counters.requests.get_money_v1_account ?? 0]).toEqual([0, 0]);
		expect(hintsOf(preview)).toEqual([
			'Money charge preview, nothing was sent: 1 of 2 rows would be sent, 1 refused (item 2)',
			'Money charge preview: the rows that would be sent total 2500 XOF',
			'Charges are not paced by the node: the run takes as long as its requests',
		]);
	});

	it('a preview, then a real run of the same workflow without Business References, pays every good row once', async () => {
		const sheet = items('', [['', 42_001], ['', 42_002], ['', 42_003]]);
		const parameters = payoutParameters(true, { businessReference: '', requireBusinessReference: false });
		const preview = await runWorkflow(env.engine, workflowWith(parameters, CREDENTIAL_ID), { items: sheet, mode: 'manual' });
		expect(outputOf(preview).map((item) => item.verdict)).toEqual(['would send', 'would send', 'would send']);
		expect(outputOf(preview).every((item) => item.idempotency_key === null)).toBe(true);

		const real = await runWorkflow(env.engine, workflowWith({ ...parameters, preview: false }, CREDENTIAL_ID), { items: sheet, mode: 'manual' });
		expect(outputOf(real).map((item) => item.outcome)).toEqual(['created', 'created', 'created']);
		const ledger = (await env.sb.control.ledger()).payouts.filter((entry) => [42_001, 42_002, 42_003].includes(Math.abs(entry.amount.value)));
		expect(ledger).toHaveLength(3);
	});

	it('a preview as a Retry of a failed run reads its memory and changes nothing: the real Retry after it pays each row once', async () => {
		const sheet = items('', [['', 71_101, 'GM-1002'], ['', 71_102, 'GM-1003'], ['', 900_100, 'GM-1002']]);
		const parameters = payoutParameters(false, { businessReference: '', requireBusinessReference: false, options: { maxRetries: 0, retryBaseDelayMs: 2 } });
		const money = moneyNode({ parameters: parameters as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
		const failed = await runWorkflow(env.engine, workflow, { items: sheet, mode: 'trigger' });
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
		const memory = JSON.stringify(failed.run.data.executionData?.contextData);

		const previewNode = moneyNode({ parameters: { ...parameters, preview: true } as never });
		const previewed = await retryExecution(env.engine, buildWorkflow(env.engine, { nodes: [trigger, { ...previewNode, id: money.id }], connections: chain([trigger, money]) }), failed);
		// Row 3 still overdraws the wallet (topped up only after the preview): the preview says so, as a real Retry now would.
		expect(outputOf(previewed).map((item) => [item.verdict, item.reason === null ? null : String(item.reason).includes('INSUFFICIENT_FUNDS') ? 'overdraws' : 'made before'])).toEqual([
			['would send', 'made before'],
			['would send', 'made before'],
			['would refuse', 'overdraws'],
		]);
		expect(JSON.stringify(previewed.run.data.executionData?.contextData)).toBe(memory);
		expect(await payoutPosts()).toBe(3);

		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(outputOf(retried).map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'created']);
		const ledger = (await env.sb.control.ledger()).payouts.filter((entry) => [71_101, 71_102, 900_100].includes(Math.abs(entry.amount.value)));
		expect(ledger).toHaveLength(3);
	});
});

function result0PairedItems(result: RunResult): number[] {
	return result.output('Money').map((item) => (item.pairedItem as { item: number }).item);
}
