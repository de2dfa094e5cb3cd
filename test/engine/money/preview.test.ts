import type { IConnections, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, retryExecution, type RunResult, runWorkflow } from '../../harness/engine';
import { useSandboxEngine } from './setup';

/**
 * Preview Only (issue 31 item 8): every row checked as the create checks it, nothing that moves
 * money sent, nothing written to the node's memory; the verdicts are what the real run then does.
 */

const env = useSandboxEngine({ nodeTypes: ['n8n-nodes-base.splitInBatches'] });
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
	const connections: IConnections = {};
	for (let index = 0; index < nodes.length - 1; index++)
		connections[nodes[index].name] = {
			main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]],
		};
	return connections;
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

/** A Retry of `failed` on a workflow of these nodes (by default chained), as a user edits the workflow before retrying. */
const retryOn = (failed: RunResult, nodes: INode[], connections = chain(nodes)): Promise<RunResult> =>
	retryExecution(env.engine, buildWorkflow(env.engine, { nodes, connections }), failed);

/** The same node (its id) with other parameters: Preview Only switched, as a user does before a Retry. */
const withPreview = (node: INode, preview: boolean): INode => ({ ...node, parameters: { ...node.parameters, preview } });

/** A step after the payouts that fails on this execution: a Transaction Get whose ID reads a field the items lack. */
const failingCheck = (): INode => moneyNode({ name: 'Check', parameters: { resource: 'transaction', operation: 'get', transactionId: '={{ $json.noSuchField }}' } as never });

/** That step as the user fixes it before the Retry: the same node (its id), now one that passes its items on. */
const fixedCheck = (failing: INode): INode => ({ id: failing.id, name: 'Check', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} });

const items = (run: string, entries: Array<[string, string | number, string?]>): INodeExecutionData[] =>
	entries.map(([ref, amount, identifier]) => ({ json: { ref: ref === '' ? '' : `${run}-${ref}`, amount, identifier: identifier ?? 'GM-1002' } }));

const outputOf = (result: RunResult, node = 'Money', runIndex = 0): IDataObject[] => result.output(node, 0, runIndex).map((item) => item.json);

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
		expect(hints.join('\n')).toContain('2 of 5 rows would be sent, 3 refused (items 2, 4 and 5)');
		expect(hints.join('\n')).toMatch(/total 2500 XOF; wallet \S+ has 100000000 XOF available, which covers them/);
		expect(hints.join('\n')).toContain('velocity limit of 2 per 60 s');
		// Nothing of the run is kept in the node's memory but the lost-run verdict (a later Retry reads it: no run was lost).
		expect(preview.run.data.executionData?.contextData['node:Money'] ?? {}).toEqual({ money: { lostRun: false } });

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
			expect.stringMatching(/^Money charge preview: plan plan-[0-9a-f]{40}, 2 rows to the Money API client \S+ at http:\/\/127\.0\.0\.1:\d+$/),
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

		const previewed = await retryOn(failed, [trigger, withPreview(money, true)]);
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

/** The real run's verdict for a row, without its reason. */
const verdictOf = (item: IDataObject): string => (item.outcome === 'failed' ? 'would refuse' : 'would send');

const hintText = (result: RunResult): string => hintsOf(result).join('\n');

const SWITCH = 'Preview Only (preview) is one switch for the whole run';

async function paidAmounts(amounts: number[]): Promise<number[]> {
	const ledger = await env.sb.control.ledger();
	return ledger.payouts.map((entry) => Math.abs(entry.amount.value)).filter((amount) => amounts.includes(amount));
}

describe('Preview Only on the paths a run takes', () => {
	it('a row repeating an earlier row (same Business Reference, same payout) reads as made before, as the real run answers it from the record: it is not paced and the next row still goes', async () => {
		// Rows 1 and 2 are one payout (a sheet with a duplicated line): the run accepts that (runReferences.ts), the
		// API answers row 2 from its record (outcome replayed, nothing moves, no room taken in the velocity window).
		const sheet = items(`dupe-${Date.now()}`, [
			['A', 1000],
			['A', 1000],
			['B', 1000],
		]);

		const preview = await runWorkflow(env.engine, workflowWith(payoutParameters(true)), { items: sheet, mode: 'trigger' });
		const real = await runWorkflow(env.engine, workflowWith(payoutParameters(false)), { items: sheet, mode: 'trigger' });

		expect(outputOf(real).map((item) => item.outcome)).toEqual(['created', 'replayed', 'created']);
		expect({
			verdicts: outputOf(preview).map((item) => item.verdict),
			totals: /total (\d+ XOF)/.exec(hintText(preview))?.[1],
		}).toEqual({
			verdicts: outputOf(real).map(verdictOf),
			totals: '2000 XOF',
		});
	});

	it('a balance that runs out mid-run: the preview refuses the row that overdraws and the later rows of the wallet, as the real run stops there', async () => {
		await env.sb.control.updateClient(env.sb.info.clientId, {
			balance: 10_000,
		});
		const sheet = items(`short-${Date.now()}`, [
			['1', 6000],
			['2', 5000],
			['3', 3000],
		]);

		const preview = await runWorkflow(env.engine, workflowWith(payoutParameters(true), CREDENTIAL_ID), { items: sheet, mode: 'trigger' });
		const real = await runWorkflow(env.engine, workflowWith(payoutParameters(false), CREDENTIAL_ID), { items: sheet, mode: 'trigger' });

		expect(outputOf(real).map(verdictOf)).toEqual(['would send', 'would refuse', 'would refuse']);
		expect(outputOf(preview).map((item) => item.verdict)).toEqual(outputOf(real).map(verdictOf));
	});

	it('Require Business Reference (on by default): a preview run from the editor says of every row without a reference that a production execution refuses it, as the production run does', async () => {
		const sheet = items('', [
			['', 43_001],
			['', 43_002],
		]);
		const parameters = payoutParameters(true, { businessReference: '' });

		const preview = await runWorkflow(env.engine, workflowWith(parameters, CREDENTIAL_ID), { items: sheet, mode: 'manual' });
		const real = await runWorkflow(env.engine, workflowWith({ ...parameters, preview: false }, CREDENTIAL_ID), { items: sheet, mode: 'trigger' });

		expect(outputOf(real).map(verdictOf)).toEqual(['would refuse', 'would refuse']);
		// Sent when run from the editor (the manual real run is exempt), refused by the production run: the reason says so.
		expect(outputOf(preview).map((item) => [item.verdict, String(item.reason).slice(0, 72)])).toEqual(
			outputOf(real).map(() => ['would send', 'sent when run from the editor; a production execution (trigger, webhook,']),
		);
		expect(String(outputOf(preview)[0].reason)).toContain(String(outputOf(real)[0].error));
	});

	// A limit (docs/architecture.md "Preview Only", docs/idempotency.md): n8n's Retry resumes at the node that failed and keeps
	// the output of the nodes before it, so the Money node does not run again and its preview output flows on. Nothing the node
	// can do: it is not called. The field's description and the README say to run the workflow anew after a preview.
	it.failing('a Retry (currently saved workflow, Preview Only off) of a preview execution that failed after the Money node pays nobody and ends successfully', async () => {
		const sheet = items(`retry-${Date.now()}`, [
			['1', 44_001],
			['2', 44_002],
		]);
		const money = moneyNode({
			parameters: payoutParameters(true, {
				options: { maxRetries: 0, retryBaseDelayMs: 2 },
			}) as never,
		});
		// Say, a sheet update the preview's items do not fit.
		const failing = failingCheck();
		const failed = await runWorkflow(
			env.engine,
			buildWorkflow(env.engine, {
				nodes: [trigger, money, failing],
				connections: chain([trigger, money, failing]),
			}),
			{
				items: sheet,
				mode: 'trigger',
			},
		);
		expect(failed.error()).toBeDefined();
		expect(outputOf(failed).map((item) => item.verdict)).toEqual(['would send', 'would send']);

		const fixed = fixedCheck(failing);
		const retried = await retryOn(failed, [trigger, withPreview(money, false), fixed]);
		expect(retried.error()).toBeUndefined();
		// Had no preview run, the two rows would be paid by now (or the Retry would say why not).
		expect(await paidAmounts([44_001, 44_002])).toEqual([44_001, 44_002]);
	});

	it('a preview inside a loop, its execution retried with Preview Only off: the next batch is paid, not refused as a run n8n lost in a crash', async () => {
		const loop: INode = {
			id: 'loop',
			name: 'Loop Over Items',
			type: 'n8n-nodes-base.splitInBatches',
			typeVersion: 3,
			position: [200, 0],
			parameters: { batchSize: 1, options: {} },
		};
		const parameters = payoutParameters(true, {
			businessReference: '',
			requireBusinessReference: false,
			options: { maxRetries: 0, retryBaseDelayMs: 2 },
		});
		const money = moneyNode({
			parameters: parameters as never,
			settings: CONTINUE,
		});
		const failing = failingCheck();
		const connect = (check: INode): IConnections => ({
			Start: { main: [[{ node: loop.name, type: 'main', index: 0 }]] },
			[loop.name]: {
				main: [[], [{ node: money.name, type: 'main', index: 0 }]],
			},
			[money.name]: { main: [[{ node: check.name, type: 'main', index: 0 }]] },
			[check.name]: { main: [[{ node: loop.name, type: 'main', index: 0 }]] },
		});
		const sheet = items('', [
			['', 45_001],
			['', 45_002],
		]);
		const failed = await runWorkflow(
			env.engine,
			buildWorkflow(env.engine, {
				nodes: [trigger, loop, money, failing],
				connections: connect(failing),
			}),
			{ items: sheet, mode: 'trigger' },
		);
		expect(failed.error()).toBeDefined();
		expect(outputOf(failed).map((item) => item.verdict)).toEqual(['would send']);

		const fixed = fixedCheck(failing);
		const retried = await retryOn(failed, [trigger, loop, withPreview(money, false), fixed], connect(fixed));
		const secondBatch = outputOf(retried, 'Money', 1);
		expect(secondBatch.map((item) => [item.outcome, item.error ?? null])).toEqual([['created', null]]);
	});
});

describe('Preview Only on the paths a run takes (more)', () => {
	it('On Error at its default (Stop Workflow): the rows after the first refused row are not reached, in the preview as in the real run', async () => {
		const sheet = items(`stop-${Date.now()}`, [
			['1', 46_001],
			['2', 'abc'],
			['3', 46_003],
		]);
		const money = (preview: boolean) =>
			moneyNode({
				parameters: payoutParameters(preview, {
					options: { maxRetries: 0, retryBaseDelayMs: 2 },
				}) as never,
			});
		const run = async (preview: boolean) => {
			const node = money(preview);
			return await runWorkflow(
				env.engine,
				buildWorkflow(env.engine, {
					nodes: [trigger, node],
					connections: chain([trigger, node]),
				}),
				{ items: sheet, mode: 'trigger' },
			);
		};
		const preview = await run(true);
		const real = await run(false);
		expect(real.error()?.message).toContain('Amount (amount)');
		expect(await paidAmounts([46_001, 46_003])).toEqual([46_001]);
		expect(outputOf(preview).map((item) => item.verdict)).toEqual(['would send', 'would refuse', 'would refuse']);
		expect(outputOf(preview)[2].reason).toBe('not reached: the run stops at item 2 (On Error: Stop Workflow)');
		expect(hintText(preview)).toContain('1 of 3 rows would be sent, 1 refused (item 2); On Error is Stop Workflow: the run stops at item 2 and does not reach the row after it');
	});

	it('Preview Only given by an expression (a sheet column dryRun holding "true") does not pay: the item is refused naming Preview Only', async () => {
		const sheet = items(`dry-${Date.now()}`, [['1', 47_001]]).map((item) => ({
			json: { ...item.json, dryRun: 'true' },
		}));
		const result = await runWorkflow(env.engine, workflowWith(payoutParameters(false, { preview: '={{ $json.dryRun }}' }), CREDENTIAL_ID), { items: sheet, mode: 'trigger' });
		expect({
			outcome: outputOf(result)[0]?.outcome,
			error: String(outputOf(result)[0]?.error).slice(0, SWITCH.length),
			paid: await paidAmounts([47_001]),
		}).toEqual({ outcome: 'failed', error: SWITCH, paid: [] });
	});

	it('Preview Only mapped from a column that differs between rows pays no row whose value is true: a row that disagrees with the first is refused naming Preview Only', async () => {
		const sheet = items(`dry-mixed-${Date.now()}`, [['1', 47_101], ['2', 47_102]]).map((item, index) => ({ json: { ...item.json, dryRun: index === 1 } }));
		const result = await runWorkflow(env.engine, workflowWith(payoutParameters(false, { preview: '={{ $json.dryRun }}' }), CREDENTIAL_ID), { items: sheet, mode: 'trigger' });
		const second = outputOf(result)[1];
		expect({ outcome: second?.outcome, error: String(second?.error).slice(0, SWITCH.length) }).toEqual({ outcome: 'failed', error: SWITCH });
		expect(await paidAmounts([47_102])).toEqual([]);
	});

	it('a preview that failed as a whole (its credential could not be read), then a Retry with the credential fixed and Preview Only off, pays: not refused as a run n8n lost in a crash', async () => {
		const sheet = items('', [['', 48_001]]);
		const parameters = payoutParameters(true, {
			businessReference: '',
			requireBusinessReference: false,
			options: { maxRetries: 0, retryBaseDelayMs: 2 },
		});
		const broken = moneyNode({
			parameters: parameters as never,
			credentialId: 'adversary-no-such-credential',
		});
		const failed = await runWorkflow(
			env.engine,
			buildWorkflow(env.engine, {
				nodes: [trigger, broken],
				connections: chain([trigger, broken]),
			}),
			{ items: sheet, mode: 'trigger' },
		);
		expect(failed.error()).toBeDefined();

		const fixed = { ...withPreview(broken, false), credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Money API account' } }, ...CONTINUE };
		const retried = await retryOn(failed, [trigger, fixed]);
		expect(outputOf(retried).map((item) => [item.outcome, item.error ?? null])).toEqual([['created', null]]);
	});

	it('a preview as a Retry of a run whose create got no answer (the API committed it) says the API may already hold it and counts it as "up to", as the real Retry gets it answered from the record', async () => {
		const sheet = items(`uncertain-${Date.now()}`, [
			['1', 49_301],
			['2', 49_302],
		]);
		const parameters = payoutParameters(false, {
			options: { maxRetries: 0, retryBaseDelayMs: 2 },
		});
		const money = moneyNode({
			parameters: parameters as never,
			credentialId: CREDENTIAL_ID,
		});
		const workflow = buildWorkflow(env.engine, {
			nodes: [trigger, money],
			connections: chain([trigger, money]),
		});
		await env.sb.control.addFault({
			route: 'post_money_v1_payout',
			kind: 'drop-after-commit',
			count: 1,
		});
		const failed = await runWorkflow(env.engine, workflow, {
			items: sheet,
			mode: 'trigger',
		});
		await env.sb.control.clearFaults();
		expect(failed.error()).toBeDefined();

		const previewed = await retryOn(failed, [trigger, withPreview(money, true)]);
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(outputOf(retried).map((item) => item.outcome)).toEqual(['created', 'created']);
		expect(outputOf(retried)[0].earlier_attempt).toBe(`no answer in execution ${failed.executionId}`);
		expect(hintText(previewed)).toContain('total 49302 XOF (up to 98603 XOF with the 1 sent before without an answer, which the Money API may already hold)');
		expect(String(outputOf(previewed)[0].reason)).toContain('sent before without an answer: the Money API may already hold it');
	});

	it("On Velocity Limit: Fail with more rows than the credential's limit: the rows past the limit would be refused, as in the real run", async () => {
		await env.sb.control.updateClient(env.sb.info.clientId, {
			limits: { velocityLimit: 2, velocityWindowSeconds: 60 },
		});
		// The sandbox's window still holds the payouts of the tests before this one: its clock moves past them.
		await env.sb.control.setClockOffset(120);
		const sheet = items(`vfail-${Date.now()}`, [
			['1', 49_401],
			['2', 49_402],
			['3', 49_403],
		]);
		const parameters = (preview: boolean) =>
			payoutParameters(preview, {
				options: {
					maxRetries: 0,
					retryBaseDelayMs: 2,
					onVelocityLimit: 'fail',
				},
			});
		const preview = await runWorkflow(env.engine, workflowWith(parameters(true)), { items: sheet, mode: 'trigger' });
		const real = await runWorkflow(env.engine, workflowWith(parameters(false)), { items: sheet, mode: 'trigger' });
		expect(outputOf(real).map(verdictOf)).toEqual(['would send', 'would send', 'would refuse']);
		expect(outputOf(preview).map((item) => item.verdict)).toEqual(outputOf(real).map(verdictOf));
	});
});
