import { buildWorkflow, CREDENTIAL_ID, MONEY_NODE, moneyNode, type RunResult, runWorkflow, withMoneyTool } from '../../harness/engine';
import { CONTINUE, FAST, type Parameters, useMoneyNode } from './setup';

/*
 * What the Money node does whatever the operation: it refuses bad input before any request, refreshes a
 * revoked token on its own, and moves no money in tool mode unless allowed and under the maximum.
 */
const env = useMoneyNode();
const { run, json, payout } = env;

describe('Money node against the sandbox', () => {
	describe('refusals before any request', () => {
		async function createRequests(): Promise<number> {
			const counters = await env.sb.control.counters();
			return (counters.requests.post_money_v1_charge ?? 0) + (counters.requests.post_money_v1_payout ?? 0);
		}

		it.each([
			['a text file', Buffer.from('just some text, not a receipt')],
			['a 2 MB + 1 byte PDF', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2 * 1024 * 1024 + 1 - 9, 0x20)])],
		])('refuses %s as payment reference document', async (_name, bytes) => {
			const before = await createRequests();
			const result = await run(
				payout({ additionalFields: { paymentReferenceDocumentField: 'data' } }),
				{ items: [{ json: {}, binary: { data: { data: bytes.toString('base64'), mimeType: 'application/pdf' } } }], settings: CONTINUE },
			);
			expect(json(result)).toMatchObject({ field: 'payment_reference.ref_document' });
			expect(await createRequests()).toBe(before);
		});

		it.each([
			[{ amount: 12.5 }, 'amount'],
			[{ amount: 0 }, 'amount'],
			[{ beneficiaryIdentifierType: 'phone', beneficiaryIdentifier: '90000001x', beneficiaryAccountType: 'Client' }, 'beneficiary_identifier.identifier'],
			[{ beneficiaryIdentifierType: 'phone', beneficiaryIdentifier: '+22890000001', channel: 'platform', beneficiaryAccountType: '={{ "" }}' }, 'beneficiary_account_type'],
			[{ additionalFields: { message: 'x'.repeat(256) } }, 'message'],
			[{ beneficiaryIdentifierType: 'bank_account' }, 'beneficiary_identifier.type'],
		])('refuses %j naming %s', async (overrides, field) => {
			const before = await createRequests();
			const item = json(await run(payout(overrides), { settings: CONTINUE }));
			expect(item.field).toBe(field);
			expect(await createRequests()).toBe(before);
		});

		it('stops the workflow with the field named when Continue On Fail is off', async () => {
			const result = await run(payout({ amount: -5 }));
			expect(result.error()?.message).toContain('Amount (amount)');
		});
	});

	describe('revoked token', () => {
		it('refreshes the token transparently', async () => {
			json(await run({ resource: 'account', operation: 'get', options: FAST }));
			const tokenBefore = env.engine.credentials.stored(CREDENTIAL_ID).accessToken;
			const requestsBefore = (await env.sb.control.counters()).tokenRequests;
			await env.sb.control.revokeTokens();
			const item = json(await run({ resource: 'account', operation: 'get', options: FAST }));
			expect(item.id).toBeDefined();
			expect((await env.sb.control.counters()).tokenRequests).toBe(requestsBefore + 1);
			expect(env.engine.credentials.stored(CREDENTIAL_ID).accessToken).not.toBe(tokenBefore);
		});
	});

	describe('tool mode', () => {
		async function runTool(parameters: Parameters, items?: Array<{ json: Record<string, unknown> }>): Promise<RunResult> {
			const tools = withMoneyTool(env.engine);
			const node = { ...moneyNode({ parameters: parameters as never, settings: CONTINUE }), type: `${MONEY_NODE}Tool` };
			return env.remember(await runWorkflow(tools, buildWorkflow(tools, { nodes: [node] }), items ? { items: items as never } : {}));
		}

		const payouts = async () => (await env.sb.control.ledger()).payouts.length;
		const agent = (overrides: Parameters = {}) =>
			payout({ allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000, requireBusinessReference: false, businessReference: '', ...overrides });

		it('refuses money movement unless switched on, and above the maximum', async () => {
			const before = await payouts();
			expect(String(json(await runTool(payout())).error)).toContain('turned off');
			const above = String(json(await runTool(payout({ allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000 }))).error);
			expect(above).toContain('above the maximum per payment of 1000');
			expect(above).toContain('split');
			expect(await payouts()).toBe(before);

			const allowed = json(await runTool(payout({ amount: 900, allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000 })));
			expect(allowed.reference).toBeDefined();
			expect(allowed.mandate).toMatchObject({ verdict: 'within mandate', spent_24h_before: null, limit_24h: null });
			expect(json(await runTool({ resource: 'account', operation: 'get', options: FAST })).id).toBeDefined();
		});

		it('pays the same call made twice in one execution once, without a Business Reference', async () => {
			const before = await payouts();
			const result = await runTool(agent({ amount: 700 }), [{ json: { toolCallId: 'call_1' } }, { json: { toolCallId: 'call_2' } }]);
			const [first, second] = result.output('Money').map((item) => item.json);
			expect(first).toMatchObject({ outcome: 'created', mandate: { verdict: 'within mandate' } });
			expect(second).toMatchObject({ outcome: 'replayed', reference: first.reference });
			expect(await payouts()).toBe(before + 1);
		});

		it('refuses a party, currency, channel or expiry outside the mandate, and a split of a refused payment', async () => {
			const before = await payouts();
			const refusal = async (overrides: Parameters) => String(json(await runTool(agent({ amount: 100, ...overrides }))).error);
			expect(await refusal({ allowedPartiesInToolMode: 'someone-else, another' })).toContain('not among the mandate');
			expect(await refusal({ allowedCurrenciesInToolMode: ['XAF'] })).toContain('currency XOF');
			expect(await refusal({ allowedChannelsInToolMode: ['psp-a-tg'] })).toMatch(/channel \S+ is not one the mandate allows/);
			expect(await refusal({ mandateExpiresInToolMode: '2020-01-01T00:00:00Z' })).toContain('the mandate expired');
			expect(await refusal({ maxAmountInToolMode: "={{ $fromAI('maximum', '', 'number') }}" })).toContain('never by the model');
			const split = await runTool(agent({ amount: '={{ $json.amount }}' }), [{ json: { amount: 1500 } }, { json: { amount: 750 } }]);
			const [big, part] = split.output('Money').map((item) => String(item.json.error));
			expect(big).toContain('above the maximum per payment');
			expect(part).toContain('refused earlier in this execution');
			expect(await payouts()).toBe(before);
		});

		it.each([
			['a web page, the payout not made', 'page-200', 0],
			['a web page after the payout was made', 'page-200-after-commit', 1],
		] as const)('counts a create answered by %s as spent, and tells the model the outcome is unknown', async (_name, kind, made) => {
			const before = await payouts();
			const spent = (json(await runTool(agent({ amount: 100, maxAmountPer24HoursInToolMode: 10 ** 9 }))).mandate as { spent_24h_after: number }).spent_24h_after;
			await env.sb.control.addFault({ route: 'post_money_v1_payout', kind, count: 1 });
			const limit = agent({ amount: '={{ $json.amount }}', maxAmountPer24HoursInToolMode: spent + 600, options: { maxRetries: 0 } });
			const [unknown, next] = (await runTool(limit, [{ json: { amount: 400 } }, { json: { amount: 300 } }])).output('Money').map((item) => String(item.json.error));
			expect(unknown).toMatch(/^The payout may have been made, its outcome is unknown .*; it counts as spent\. Do not call again/);
			expect(next).toContain(`past the maximum of ${spent + 600} (already ${spent + 400})`);
			expect(await payouts()).toBe(before + 1 + made);
		});

		it('lets executions deciding at once pass the 24-hour maximum by at most (executions - 1) x the maximum per payment', async () => {
			const spent = (json(await runTool(agent({ amount: 100, maxAmountPer24HoursInToolMode: 10 ** 9 }))).mandate as { spent_24h_after: number }).spent_24h_after;
			const ledger = async () => (await env.sb.control.ledger()).payouts.reduce((sum, payout) => sum + Math.abs(Number((payout.amount as { value: number }).value)), 0);
			const paidBefore = await ledger();
			const parallel = 4;
			const call = agent({ amount: 1000, maxAmountPer24HoursInToolMode: spent + 1000 });
			const outcomes = await Promise.all(Array.from({ length: parallel }, async () => json(await runTool(call)).outcome));
			const paid = (await ledger()) - paidBefore;
			expect(outcomes.filter((outcome) => outcome === 'created').length).toBeGreaterThanOrEqual(1);
			expect(paid - 1000).toBeLessThanOrEqual((parallel - 1) * 1000);
		});

		it('previews a run for a person to approve, sending nothing, with money movement off', async () => {
			const before = await payouts();
			const result = await runTool(payout({ preview: true, businessReference: '={{ $json.order }}' }), [{ json: { order: 'agent-proposal-1' } }, { json: { order: 'agent-proposal-2' } }]);
			const items = result.output('Money').map((item) => item.json);
			expect(items).toHaveLength(2);
			expect(items[0]).toMatchObject({ preview: true });
			expect(typeof items[0].plan_id).toBe('string');
			expect(items[1].plan_id).toBe(items[0].plan_id);
			expect(await payouts()).toBe(before);
		});

		it('keeps the total of the last 24 hours, read from the API, under its maximum across executions', async () => {
			const before = await payouts();
			const daily = agent({ amount: '={{ $json.amount }}', maxAmountPer24HoursInToolMode: 1_000_000 });
			const first = json(await runTool(daily, [{ json: { amount: 600 } }]));
			const spent = (first.mandate as { spent_24h_before: number }).spent_24h_before;
			expect(first.mandate).toMatchObject({ spent_24h_after: spent + 600, limit_24h: 1_000_000 });
			const limit = agent({ amount: '={{ $json.amount }}', maxAmountPer24HoursInToolMode: spent + 1000 });
			expect(json(await runTool(limit, [{ json: { amount: 300 } }])).outcome).toBe('created');
			const over = String(json(await runTool(limit, [{ json: { amount: 200 } }])).error);
			expect(over).toContain(`past the maximum of ${spent + 1000} (already ${spent + 900})`);
			expect(await payouts()).toBe(before + 2);
		});

		describe('what the adversarial read found', () => {
			it("refuses a mandate parameter read from the tool's input, which holds the model's arguments", async () => {
				const before = await payouts();
				for (const overrides of [
					{ maxAmountInToolMode: '={{ $json.maximum }}' },
					{ allowedPartiesInToolMode: '={{ $json.payees }}' },
					{ maxAmountPer24HoursInToolMode: '={{ $input.first().json.daily }}' },
					{ maxAmountInToolMode: "={{ $fromAi('maximum') }}" },
				]) {
					const error = String(json(await runTool(agent({ amount: 500, ...overrides }), [{ json: { maximum: 1e9, payees: 'GM-1002', daily: 1e9 } }])).error);
					expect(error).toContain('never by the model');
				}
				expect(await payouts()).toBe(before);
			});

			it.each([
				['$thisItem', { maxAmountInToolMode: '={{ $thisItem.json.maximum }}' }],
				['$evaluateExpression', { maxAmountInToolMode: "={{ $evaluateExpression('{{ $js' + 'on.maximum }}') }}" }],
				['an escaped $json', { maxAmountInToolMode: '={{ \\u0024json.maximum }}' }],
				['an escaped $fromAI', { maxAmountInToolMode: "={{ $fromA\\u0049('maximum', '', 'number') }}" }],
				['this', { maxAmountInToolMode: "={{ this['$js' + 'on'].maximum }}" }],
				['$items()', { maxAmountInToolMode: '={{ $items()[0].json.maximum }}' }],
				['the tool node itself', { maxAmountInToolMode: "={{ $('Money').item.json.maximum }}" }],
				['an expression inside a list', { allowedPartiesInToolMode: ['={{ $json.payees }}'] }],
			])('refuses a mandate parameter that reads the model through %s', async (_name, overrides) => {
				const before = await payouts();
				const error = String(json(await runTool(agent({ amount: 500, ...overrides }), [{ json: { maximum: 1e9, payees: 'GM-1002' } }])).error);
				expect(error).toContain('never by the model');
				expect(await payouts()).toBe(before);
			});

			it('refuses a 24-hour maximum whose expression gives 0 (it would set no limit)', async () => {
				expect(String(json(await runTool(agent({ amount: 500, maxAmountPer24HoursInToolMode: '={{ Number("") }}' }))).error)).toContain('Maximum per 24 Hours in Tool Mode');
			});

			it('refuses a mandate expression that gives nothing or no number, instead of lifting the limit', async () => {
				const before = await payouts();
				const parties = String(json(await runTool(agent({ amount: 500, allowedPartiesInToolMode: "={{ $('Money').params.nothing }}" }))).error);
				expect(parties).toContain('Allowed Parties in Tool Mode');
				for (const daily of ['={{ "" }}', '={{ -5 }}', '={{ "lots" }}']) {
					expect(String(json(await runTool(agent({ amount: 500, maxAmountPer24HoursInToolMode: daily }))).error)).toContain('Maximum per 24 Hours in Tool Mode');
				}
				expect(await payouts()).toBe(before);
			});

			it('pays the same party written another way once, and refuses its split', async () => {
				const before = await payouts();
				const phone = agent({ amount: '={{ $json.amount }}', beneficiaryIdentifierType: 'phone', beneficiaryAccountType: 'Client', beneficiaryIdentifier: '={{ $json.to }}' });
				const paid = await runTool(phone, [{ json: { amount: 700, to: '+22890000001' } }, { json: { amount: 700, to: '22890000001' } }]);
				expect(paid.output('Money').map((item) => item.json.outcome === 'failed' ? item.json.error : item.json.outcome)).toEqual(['created', 'replayed']);
				const gm = agent({ amount: '={{ $json.amount }}', beneficiaryAccountType: '={{ $json.type }}' });
				const split = await runTool(gm, [{ json: { amount: 1500, type: '' } }, { json: { amount: 750, type: 'Driver' } }]);
				expect(String(split.output('Money')[1].json.error)).toContain('refused earlier in this execution');
				expect(await payouts()).toBe(before + 1);
			});

			it('refuses the same payment asked again under another Business Reference in the execution', async () => {
				const before = await payouts();
				const call = agent({ amount: 800, businessReference: '={{ $json.invoice }}' });
				const result = await runTool(call, [{ json: { invoice: 'INV-42' } }, { json: { invoice: '42' } }]);
				const [first, second] = result.output('Money').map((item) => item.json);
				expect(first.outcome).toBe('created');
				expect(String(second.error)).toContain(`the same payment was made earlier in this execution (reference ${String(first.reference)})`);
				expect(await payouts()).toBe(before + 1);
			});
		});
	});
});
