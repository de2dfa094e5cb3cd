import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { AGENT_METADATA, dayLimitBroken, Mandate, mandateTermsOf, type MandateTerms, movementOf, partyKey, spendingOf, termsBroken } from '../../../../../nodes/Money/helpers/create/mandate';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const HOUR = 3_600_000;

const row = (amount: number, hoursAgo: number, metadata?: IDataObject | null, status = 'COMPLETED'): IDataObject => ({
	reference: `pay_${amount}_${hoursAgo}`,
	amount: { value: -amount, currency: 'XOF' },
	status: { code: 1, label: status },
	created_at: new Date(NOW - hoursAgo * HOUR).toISOString(),
	...(metadata === undefined ? {} : { metadata }),
});
const agent = (key: string): IDataObject => ({ [AGENT_METADATA.verdict]: 'within mandate', [AGENT_METADATA.key]: key });

const terms = (overrides: Partial<MandateTerms> = {}): MandateTerms => ({
	perPayment: 1000,
	per24Hours: 0,
	parties: [],
	currencies: [],
	channels: [],
	beyond: 'refuse',
	...overrides,
});
const body = { amount: 500, currency: 'XOF', channel: 'platform', beneficiary_identifier: { identifier: 'GM-1', type: 'gm_account' } };

describe('an agent mandate', () => {
	describe('the last 24 hours', () => {
		it("counts the agent's creates the list shows, not others, not those that moved nothing; the API's window says what is in the last 24 hours", () => {
			const listed = [
				row(100, 1, agent('k1')),
				row(200, 2, { n8n_business_reference: 'order-1' }),
				row(300, 3, agent('k2'), 'FAILED'),
				row(400, 4, agent('k3'), 'CANCELLED'),
				row(500, 5, agent('k4'), 'REVERSED'),
				row(600, 6, agent('k5'), 'SOMETHING NEW'),
				row(700, 25, agent('k6')),
				row(800, 7),
			];
			expect(spendingOf(listed, [], 'call')).toEqual({ total: 100 + 500 + 600 + 700, unmarked: 0 });
		});

		it('counts every create when the list shows no metadata at all, and says how many', () => {
			const listed = [row(100, 1), row(200, 2, null), row(300, 3, undefined, 'FAILED')];
			expect(spendingOf(listed, [], 'call')).toEqual({ total: 300, unmarked: 2 });
		});

		it("adds this execution's sends the list does not show yet, once, and counts a listed create under the call's own key", () => {
			const listed = [row(100, 1, agent('k1')), row(250, 1, agent('call'))];
			const own = [
				{ key: 'k1', amount: 100 },
				{ key: 'k9', amount: 900 },
				{ key: 'call', amount: 250 },
			];
			expect(spendingOf(listed, own, 'call')).toEqual({ total: 1250, unmarked: 0 });
		});

		it('counts a row whose metadata is not an object, and fails on an amount it cannot read', () => {
			expect(spendingOf([row(100, 1, agent('k1')), { ...row(300, 1), metadata: '{"n8n_agent_mandate":"within mandate"}' }], [], 'call')).toEqual({ total: 400, unmarked: 1 });
			expect(() => spendingOf([row(100, 1, agent('k1')), { ...row(1, 1, agent('k2')), amount: { amount: 5000 } }], [], 'call')).toThrow('cannot be read');
		});

		it('is broken only past its maximum, naming what was already spent', () => {
			expect(dayLimitBroken(terms({ per24Hours: 1000 }), 400, { total: 600, unmarked: 0 })).toBeUndefined();
			expect(dayLimitBroken(terms({ per24Hours: 1000 }), 401, { total: 600, unmarked: 0 })).toBe(
				"amount 401 would take the last 24 hours' total past the maximum of 1000 (already 600)",
			);
			expect(dayLimitBroken(terms({ per24Hours: 0 }), 10 ** 9, { total: 10 ** 9, unmarked: 0 })).toBeUndefined();
			expect(dayLimitBroken(terms({ per24Hours: 10 }), 5, { total: 6, unmarked: 3 })).toContain('give the agent an API client of its own');
		});
	});

	describe('the terms', () => {
		it('passes a call within every term', () => {
			expect(termsBroken('payout', terms({ parties: ['GM-1'], currencies: ['XOF'], channels: ['platform'], expiresAt: NOW + 1 }), body, NOW)).toEqual([]);
		});

		it('names each term a call breaks, in the order a person lifts them', () => {
			const broken = termsBroken('payout', terms({ perPayment: 100, parties: ['GM-2'], currencies: ['XAF'], channels: ['psp-a-tg'], expiresAt: NOW }), body, NOW);
			expect(broken).toEqual([
				'the mandate expired at 2026-12-06T12:00:00.000Z',
				'currency XOF is not one the mandate allows (XAF)',
				'channel platform is not one the mandate allows (psp-a-tg)',
				"GM-1 is not among the mandate's allowed beneficiaries",
				'amount 500 is above the maximum per payment of 100',
			]);
		});

		it('refuses an amount that is not a number below the maximum', () => {
			expect(termsBroken('charge', terms(), { ...body, amount: Number.NaN }, NOW)).toEqual(['amount NaN is above the maximum per payment of 1000']);
		});
	});

	describe('one payment written two ways', () => {
		it('is one party: a phone in any international form; an account identifier as written', () => {
			expect(['+22890000001', '0022890000001', '22890000001', '+228 90 00 00 01'].map((phone) => partyKey(phone, 'phone'))).toEqual(Array(4).fill('22890000001'));
			expect(partyKey(' GM-1002 ', 'gm_account')).toBe('GM-1002');
			expect(partyKey('gm-1002', 'gm_account')).not.toBe(partyKey('GM-1002', 'gm_account'));
			expect(partyKey('0012345678', 'gm_account')).not.toBe(partyKey('12345678', 'gm_account'));
		});

		it('is one movement; another amount, party, currency or channel is another', () => {
			const phone = { amount: 5, currency: 'XOF', channel: 'platform', beneficiary_identifier: { identifier: '+22890000001', type: 'phone' }, beneficiary_account_type: 'Client' };
			const same = (a: IDataObject, b: IDataObject) => JSON.stringify(movementOf('payout', a)) === JSON.stringify(movementOf('payout', b));
			expect(same(phone, { ...phone, beneficiary_identifier: { identifier: '22890000001', type: 'phone' }, message: 'x' })).toBe(true);
			expect(same(phone, { ...phone, beneficiary_account_type: 'Driver' })).toBe(false);
			expect(same(body, { ...body, beneficiary_account_type: 'Driver' })).toBe(true);
			expect(same(body, { ...body, amount: 501 })).toBe(false);
			expect(same(body, { ...body, currency: 'XAF' })).toBe(false);
		});

		it('passes the allowed list only as a phone number in another form, never an account in another form', () => {
			expect(termsBroken('payout', terms({ parties: ['+22890000001'] }), { ...body, beneficiary_identifier: { identifier: '0022890000001', type: 'phone' } }, NOW)).toEqual([]);
			expect(termsBroken('payout', terms({ parties: ['gm-1'] }), body, NOW)).toEqual(["GM-1 is not among the mandate's allowed beneficiaries"]);
			const numeric = { ...body, beneficiary_identifier: { identifier: '12345678', type: 'gm_account' } };
			expect(termsBroken('payout', terms({ parties: ['0012345678'] }), numeric, NOW)).toEqual(["12345678 is not among the mandate's allowed beneficiaries"]);
		});
	});
});

describe("a person's approval in Human review", () => {
	const flow: IDataObject = {};
	const click = { data: { ai_tool: [[{ json: { data: { approved: true, respondedAt: '2026-12-06T12:00:00.000Z' } } }]] }, inputOverride: { ai_tool: [[{ json: { tool: 'Pay_supplier', toolParameters: { amount: 5000 } } }]] } };
	/** A call of the tool node `name`, beyond its mandate (maximum 1000), through the review node's one approved run. */
	const callOf = (name: string) =>
		({
			getNode: () => ({ name, type: 'n8n-nodes-money.moneyTool', parameters: { amount: "={{ $fromAI('amount') }}" } }),
			getNodeParameter: (parameter: string, _itemIndex: number, fallback?: unknown) =>
				({ allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000, beyondMandateInToolMode: 'review' })[parameter] ?? fallback,
			getContext: (type: string) => (type === 'flow' ? flow : {}),
			getTimezone: () => 'UTC',
			getExecuteData: () => ({ source: { main: [{ previousNode: 'Human review' }] } }),
			getInputData: () => [{ json: { amount: 5000, toolCallId: 'call_1' } }],
			workflow: { getNode: () => ({ type: 'n8n-nodes-base.emailSendHitlTool' }) },
			runExecutionData: { resultData: { runData: { 'Human review': [click] } } },
		}) as unknown as IExecuteFunctions;
	const decide = async (name: string, key: string) => await new Mandate(callOf(name), 'payout', async () => []).decide(0, key, { ...body, amount: 5000 }, NOW);

	it('pays the call it approved, but no other call, through another Money tool behind the same review or under another key', async () => {
		expect(String(((await decide('Pay driver', 'key-b')) as { error: Error }).error.message)).toContain('did not come through an approved review');
		expect(await decide('Pay supplier', 'key-a')).toMatchObject({ verdict: { verdict: 'approved in review', review: { node: 'Human review', run: 0 } } });
		expect(String(((await decide('Pay supplier', 'key-c')) as { error: Error }).error.message)).toContain('did not come through an approved review');
	});
});

describe("the execution's record of an agent's sends (the third adversarial read)", () => {
	const toolOf = (flow: IDataObject, name: string) =>
		({
			getNode: () => ({ name, type: 'n8n-nodes-money.moneyTool', parameters: {} }),
			getNodeParameter: (parameter: string, _itemIndex: number, fallback?: unknown) => ({ allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000 })[parameter] ?? fallback,
			getContext: (type: string) => (type === 'flow' ? flow : {}),
			getTimezone: () => 'UTC',
			getExecuteData: () => undefined,
			getInputData: () => [{ json: {} }],
		}) as unknown as IExecuteFunctions;
	const mandateOf = (flow: IDataObject, name: string) => new Mandate(toolOf(flow, name), 'payout', async () => []);
	const refusedNow = async (mandate: Mandate, key: string) => 'error' in (await mandate.decide(0, key, body, NOW));

	it("keeps one tool's payment when another tool's call under the same key is refused by the API", async () => {
		const flow: IDataObject = {};
		const supplier = mandateOf(flow, 'Pay supplier');
		expect(await refusedNow(supplier, 'key-a')).toBe(false);
		supplier.record('key-a', 'accepted', 'pay_1');
		const driver = mandateOf(flow, 'Pay driver');
		expect(String(((await driver.decide(0, 'key-a', { ...body, message: 'other' }, NOW)) as { error: Error }).error.message)).toContain('the same payment was made earlier in this execution (reference pay_1)');
		driver.record('key-a', 'refused');
		expect(await refusedNow(mandateOf(flow, 'Pay supplier'), 'key-b')).toBe(true);
	});

	it('keeps an uncertain send when its resend, not decided again, is not sent', async () => {
		const flow: IDataObject = {};
		const tool = mandateOf(flow, 'Pay supplier');
		await tool.decide(0, 'key-a', body, NOW);
		tool.record('key-a', 'uncertain');
		mandateOf(flow, 'Pay supplier').record('key-a', 'refused');
		expect(await refusedNow(tool, 'key-b')).toBe(true);
	});

	it("counts the agent's own listed send once when the list shows no metadata", () => {
		const listed = [{ reference: 'pay_1', amount: { value: -500, currency: 'XOF' }, status: { code: 1, label: 'PENDING' } }];
		expect(spendingOf(listed, [{ key: 'k1', amount: 500, reference: 'pay_1' }], 'k2').total).toBe(500);
	});
});

describe('mandate expressions', () => {
	const termsWith = (expression: unknown) =>
		mandateTermsOf(
			{
				getNode: () => ({ name: 'Pay supplier', type: 'n8n-nodes-money.moneyTool', parameters: { maxAmountInToolMode: expression } }),
				getNodeParameter: (parameter: string) => (parameter === 'maxAmountInToolMode' ? 100 : undefined),
				getTimezone: () => 'UTC',
			} as unknown as IExecuteFunctions,
			0,
		);
	const refused = (expression: unknown) => !('perPayment' in termsWith(expression));

	it.each([
		'={{ $(`Pay supplier`).last().json.amount }}',
		"={{ $( 'Pay supplier').last().json.amount }}",
		"={{ $('Pay ' + 'supplier').last().json.amount }}",
		'={{ $().last().json.amount }}',
		'={{ $json.maximum }}',
		'={{ \\u0024json.maximum }}',
		'={{ $thisItem.json.maximum }}',
		['={{ $json.payees }}'],
		// Before, a `$` not followed at once by a name or a parenthesis was not read at all.
		"={{ $ ('Pay supplier').last().json.amount }}",
		"={{ $\n('Pay supplier').last().json.amount }}",
		"={{ [$][0]('Pay supplier').last().json.amount }}",
	])('refuses what may read the model or the tool itself: %j', (expression) => expect(refused(expression)).toBe(true));

	// Each form below evaluates in n8n 2.41.1's expression engine to what the model wrote. Before,
	// a `$("…")` match swallowed everything up to its closing quote, so a `$` inside a comment or a string was never checked.
	it.each([
		'={{ /*$("*/ $json.amount /*")*/ }}',
		"={{ /*$('*/ $json.amount /*')*/ }}",
		`={{ "$('" && $json.amount || "')" }}`,
		`={{ Number(('$("' + $json.amount + '")').slice(3, -2)) }}`,
		'={{ /*$("*/ $input.item.json.amount /*")*/ }}',
		"={{ /*$(\"*/ $('Pay supplier').last().json.amount /*\")*/ }}",
		// `$('')` is the previous node (n8n's `$` falls back to prevNode for a falsy name): a node not named.
		"={{ $('').first().json.max }}",
		'={{ $("").first().json.max }}',
		// An array entry that is an object is read as "[object Object]"; n8n resolves the expression inside it.
		[{ value: '={{ $json.amount }}' }],
	])('refuses what reads the model out of the guard\'s sight: %s', (expression) => expect(refused(expression)).toBe(true));

	it.each(['={{ $ifEmpty($vars.MAX, 100) }}', '={{ $secrets.vault.max }}', "={{ $vars.PARTIES.split('\\n') }}", "={{ $('Limits').first().json.max }}", "={{ $now.plus(30, 'days') }}", '100'])(
		'takes what a person sets: %s',
		(expression) => expect(refused(expression)).toBe(false),
	);
});
