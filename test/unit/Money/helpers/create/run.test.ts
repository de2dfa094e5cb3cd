import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import { startCreateRun } from '../../../../../nodes/Money/helpers/create/run';
import { cancelledError } from '../../../../../nodes/transport/errors';

const node: INode = { id: 'n1', name: 'Pay', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };
const ROW: Record<'charge' | 'payout', IDataObject> = {
	charge: { amount: 1000, currency: 'XOF', payerIdentifierType: 'gm_account', payerIdentifier: 'GM-1001', channel: 'platform' },
	payout: { amount: 1000, currency: 'XOF', beneficiaryIdentifierType: 'gm_account', beneficiaryIdentifier: 'GM-1002', channel: 'platform' },
};

interface Setup {
	resource: 'charge' | 'payout';
	count: number;
	/** Parameters of the node, and of single rows by item index. */
	parameters?: IDataObject;
	perRow?: Record<number, IDataObject>;
	credential?: IDataObject;
	/** The API's answer to a create of this amount: an acknowledgement unless told. */
	answerTo?: (amount: number) => { statusCode: number; body: IDataObject; headers?: IDataObject } | undefined;
}

/**
 * What a manual create run reads of n8n, and what it says: its log lines, the lines sent to the
 * editor and the hints above the output. The Money API acknowledges every create unless `answerTo` says.
 */
function manualRun({ resource, count, parameters = {}, perRow = {}, credential = {}, answerTo = () => undefined }: Setup) {
	const said = { logged: [] as string[], toEditor: [] as unknown[], hints: [] as string[] };
	const nodeContext: IDataObject = {};
	let created = 0;
	const context = {
		getMode: () => 'manual',
		getNode: () => node,
		getInputData: () => Array.from({ length: count }, () => ({ json: {} })),
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => ({ ...ROW[resource], ...parameters, ...perRow[itemIndex] })[name] ?? fallback,
		getContext: () => nodeContext,
		getWorkflowDataProxy: () => ({ $thisRunIndex: 0 }),
		getCredentials: async () => ({ authentication: 'clientCredentials', clientId: 'c1', baseUrl: 'https://api.example.com', walletPinSecret: '1234', ...credential }),
		getExecutionId: () => '1',
		continueOnFail: () => true,
		logger: { info: (line: string) => said.logged.push(line), debug: () => {} },
		sendMessageToUI: (line: unknown) => said.toEditor.push(line),
		addExecutionHints: (...hints: Array<{ message: string }>) => said.hints.push(...hints.map((hint) => hint.message)),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				const refused = answerTo((options.body as IDataObject).amount as number);
				return { headers: {}, ...(refused ?? { statusCode: 201, body: { success: true, reference: `${resource}_${++created}` } }) };
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, said, nodeContext };
}

/** Runs the items `upTo` (all by default) as the router does, On Error: Continue. */
async function runItems(setup: Setup, upTo = setup.count) {
	const { context, said, nodeContext } = manualRun(setup);
	const run = await startCreateRun(context, setup.resource);
	const failed: IDataObject[] = [];
	for (let itemIndex = 0; itemIndex < upTo; itemIndex++) {
		await run.execute(itemIndex).catch((error) => failed.push(run.failedJson(itemIndex, error)));
	}
	if (upTo === setup.count) run.finish();
	return { said, failed, nodeContext };
}

const estimateOf = async (setup: Setup) => (await runItems(setup, 1)).said.logged.find((line) => line.includes('velocity limit of'));

describe('the estimate a paced payout run announces before its first send', () => {
	it('60 payouts at the API default of 20 per 5 minutes take at least 10 min, in the log and the editor', async () => {
		const { said } = await runItems({ resource: 'payout', count: 60 }, 1);
		const estimate = 'Money payout run: 60 payouts at the velocity limit of 20 per 300 s take at least 10 min';
		expect(said.logged).toContain(estimate);
		expect(said.toEditor).toContain(estimate);
	});

	it('at the credential limit; nothing for a run that fits one window, a charge run, or On Velocity Limit Fail', async () => {
		expect(await estimateOf({ resource: 'payout', count: 12, credential: { velocityLimit: 5, velocityWindowSeconds: 2 } })).toContain('take at least 4 s');
		expect(await estimateOf({ resource: 'payout', count: 20 })).toBeUndefined();
		expect(await estimateOf({ resource: 'charge', count: 500 })).toBeUndefined();
		expect(await estimateOf({ resource: 'payout', count: 500, parameters: { options: { onVelocityLimit: 'fail' } } })).toBeUndefined();
	});
});

describe('run progress', () => {
	it('reports every 10 items and at the end, on runs of 10 or more: what was sent, failed, not attempted; the last line above the output', async () => {
		const refused = { statusCode: 400, body: { success: false, error_code: 'VALIDATION_ERROR' } };
		const { said, failed } = await runItems({ resource: 'charge', count: 25, perRow: { 4: { amount: 0 }, 7: { amount: 1007 } }, answerTo: (amount) => (amount === 1007 ? refused : undefined) });
		expect(failed.map((item) => item.attempted ?? true)).toEqual([false, true]);
		const lines = said.logged.filter((line) => line.includes('items done'));
		expect(lines).toEqual([
			'Money charge run: 10 of 25 items done (8 sent, 1 failed, 1 not attempted)',
			'Money charge run: 20 of 25 items done (18 sent, 1 failed, 1 not attempted)',
			'Money charge run: 25 of 25 items done (23 sent, 1 failed, 1 not attempted)',
		]);
		expect(said.toEditor).toEqual(lines);
		expect(said.hints).toEqual([lines[2]]);
	});

	it('says nothing of a run under 10 items that did not wait', async () => {
		const { said } = await runItems({ resource: 'charge', count: 5 });
		expect(said.logged.filter((line) => line.includes('items done'))).toEqual([]);
		expect(said.hints).toEqual([]);
	});

	it('says how long a short run waited for the velocity limit', async () => {
		const { said } = await runItems({ resource: 'payout', count: 2, credential: { velocityLimit: 1, velocityWindowSeconds: 1 } });
		expect(said.hints).toEqual([expect.stringMatching(/^Money payout run: 2 of 2 items done \(2 sent, 0 failed\); waited 1 s for the velocity limit$/)]);
	});
});

describe('a failed create item', () => {
	it('says whose payment it was as given, and no idempotency key when it was refused before one was used', async () => {
		const { failed } = await runItems({ resource: 'payout', count: 1, perRow: { 0: { amount: 0 } } });
		expect(failed).toEqual([
			expect.objectContaining({
				outcome: 'failed',
				error: expect.stringMatching(/^Amount \(amount\)/),
				beneficiary_identifier: 'GM-1002',
				amount: 0,
				currency: 'XOF',
				business_reference: null,
				attempted: false,
				idempotency_key: null,
			}),
		]);
	});
});

describe('what the memory keeps of a send that got no acknowledgement', () => {
	it('names the first attempt that may have been carried out, not the refusal after it (503, then 429)', async () => {
		const answers = [
			{ statusCode: 503, body: { success: false, error_code: 'PROVIDER_UNAVAILABLE' } },
			{ statusCode: 429, body: { success: false, error_code: 'rate_limit_exceeded' }, headers: { 'retry-after': '0' } },
		];
		const { failed, nodeContext } = await runItems({ resource: 'payout', count: 1, parameters: { businessReference: 'ord-1', options: { maxRetries: 1, retryBaseDelayMs: 1 } }, answerTo: () => answers.shift() });
		expect(failed[0]).toMatchObject({ outcome: 'failed', httpCode: 429 });
		const sent = (nodeContext.money as { sent: Record<string, { uncertain?: string }> }).sent;
		expect(Object.values(sent).map((entry) => entry.uncertain)).toEqual(['HTTP 503 in execution 1']);
	});
});

/** A create run as the router runs it, its API answering `posts` in order, its node context handed from run to run as n8n stores it. */
const PAYOUT: IDataObject = { resource: 'payout', operation: 'create', amount: 1000, currency: 'XOF', beneficiaryIdentifierType: 'gm_account', beneficiaryIdentifier: 'GM-1002', channel: 'platform', requireBusinessReference: false };

type Reply = { statusCode: number; body: unknown; headers?: IDataObject } | { throws: unknown } | ((options: IHttpRequestOptions) => unknown);

interface RunSpec {
	count: number;
	parameters?: IDataObject;
	perRow?: Record<number, IDataObject>;
	credential?: IDataObject;
	mode?: string;
	executionId?: string;
	nodeContext: IDataObject;
	/** Answers to POSTs, in order; when empty, an acknowledgement. */
	posts?: Reply[];
	/** Answer to GET /account */
	account?: IDataObject;
	continueOnFail?: boolean;
	signal?: AbortController;
	onPost?: (options: IHttpRequestOptions) => void;
	/** Items from this index on are not reached: the router's end of a stopped run gives each the failed item of a cancel. */
	stopAt?: number;
}

interface RunOut {
	items: IDataObject[];
	thrown?: unknown;
	requests: IHttpRequestOptions[];
}

/** Runs a create run the way the router does: items in order; On Error Continue gives failedJson items; else stops at the first. */
async function runCreate(spec: RunSpec): Promise<RunOut> {
	const { count, parameters = {}, perRow = {}, credential = {}, mode = 'manual', executionId = '1', nodeContext, posts = [], continueOnFail = true } = spec;
	const requests: IHttpRequestOptions[] = [];
	let created = 0;
	const context = {
		getMode: () => mode,
		getNode: () => node,
		getInputData: () => Array.from({ length: count }, () => ({ json: {} })),
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
			const all: IDataObject = { ...PAYOUT, ...parameters, ...perRow[itemIndex] };
			const value = all[name];
			if (typeof value === 'function') return (value as (i: number) => unknown)(itemIndex);
			return value ?? fallback;
		},
		getContext: () => nodeContext,
		getWorkflowDataProxy: () => ({ $thisRunIndex: 0, $: () => ({ isExecuted: mode === 'retry' }) }),
		getCredentials: async () => ({ authentication: 'clientCredentials', clientId: 'c1', baseUrl: 'https://api.example.com', velocityLimit: 1000, walletPinSecret: '1234', ...credential }),
		getExecutionId: () => executionId,
		getExecutionCancelSignal: () => spec.signal?.signal,
		continueOnFail: () => continueOnFail,
		isToolExecution: () => false,
		logger: { info: () => {}, debug: () => {}, warn: () => {} },
		sendMessageToUI: () => {},
		addExecutionHints: () => {},
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				requests.push(options);
				if (options.method === 'GET') return { statusCode: 200, headers: {}, body: spec.account ?? { account: { number: 'WAL-1', balance: { value: 1_000_000, currency: 'XOF' } } } };
				spec.onPost?.(options);
				const reply = posts.shift();
				if (reply === undefined) return { statusCode: 201, headers: {}, body: { success: true, reference: `po_${executionId}_${++created}` } };
				if (typeof reply === 'function') return reply(options);
				if ('throws' in reply) throw reply.throws;
				return { headers: {}, ...reply };
			},
		},
	} as unknown as IExecuteFunctions;
	const run = await startCreateRun(context, 'payout');
	const items: IDataObject[] = [];
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		if (spec.stopAt !== undefined && itemIndex >= spec.stopAt) {
			items.push(run.failedJson(itemIndex, cancelledError(node, 'The execution was cancelled; this item was not sent', { itemIndex, attempted: false })));
			continue;
		}
		try {
			const produced = await run.execute(itemIndex);
			items.push(produced[0].json);
		} catch (error) {
			const e = error as { context?: IDataObject };
			if (!continueOnFail && e?.context?.cancelled !== true) return { items, thrown: error, requests };
			items.push(run.failedJson(itemIndex, error as never));
		}
	}
	run.finish();
	return { items, requests };
}

/** The node context as n8n stores it (JSON), handed to a Retry. */
const saved = (nodeContext: IDataObject): IDataObject => JSON.parse(JSON.stringify(nodeContext)) as IDataObject;

const FAST = { maxRetries: 1, retryBaseDelayMs: 1 };
const replay = (reference: string) => ({ statusCode: 201, body: { success: true, reference }, headers: { 'idempotent-replayed': 'true' } });

describe('a Retry of an execution whose earlier run sent rows: an exception after an attempt that may have been carried out', () => {
	it('keeps the row uncertain, so the Retry that finds the payment says created (not replayed)', async () => {
		const nodeContext: IDataObject = {};
		const e0 = await runCreate({
			count: 1,
			nodeContext,
			parameters: { options: FAST },
			posts: [
				{ statusCode: 503, body: { success: false, error_code: 'PROVIDER_UNAVAILABLE' } },
				{ statusCode: 403, body: { success: false, error_code: 'LIMIT_EXCEEDED', details: { limit: { toString: 'x' } } } },
			],
		});
		const e1 = await runCreate({ count: 1, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', parameters: { options: FAST }, posts: [replay('po_from_E0')] });
		expect(String(e0.items[0].description)).toContain('The money may have moved');
		expect(e1.items[0]).toMatchObject({ outcome: 'created', earlier_attempt: expect.stringContaining('execution 1') });
	});
});

describe('a Retry of an execution whose earlier run paid rows, refused for the rest', () => {
	it('does not report rows the run it repeats paid as not sent', async () => {
		const nodeContext: IDataObject = {};
		const rows = { 0: { businessReference: 'o-0' }, 1: { businessReference: 'o-1' }, 2: { businessReference: 'o-2' } };
		const wallet = (value: number) => ({ account: { number: 'WAL-1', balance: { value, currency: 'XOF' } } });
		await runCreate({ count: 3, nodeContext, mode: 'trigger', perRow: rows, parameters: { options: { ...FAST, checkBalanceFirst: true } }, account: wallet(3000), posts: [{ statusCode: 201, body: { success: true, reference: 'po_0' } }, { statusCode: 201, body: { success: true, reference: 'po_1' } }, { statusCode: 402, body: { success: false, error_code: 'INSUFFICIENT_FUNDS', available_balance: 0 } }] });
		const e1 = await runCreate({ count: 3, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', perRow: rows, parameters: { options: { ...FAST, checkBalanceFirst: true } }, account: wallet(500) });
		expect(e1.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
		expect(e1.items[0]).toMatchObject({ outcome: 'replayed', reference: 'po_0' });
	});

	it('a cap/balance stop earlier in the Retry does not report a later row paid by the repeated run as not sent', async () => {
		const nodeContext: IDataObject = {};
		const rows = { 0: { businessReference: 'o-0' }, 1: { businessReference: 'o-1' } };
		await runCreate({ count: 2, nodeContext, mode: 'trigger', perRow: rows, parameters: { options: FAST }, posts: [{ statusCode: 400, body: { success: false, error_code: 'VALIDATION_ERROR' } }, { statusCode: 201, body: { success: true, reference: 'po_1' } }] });
		const e1 = await runCreate({ count: 2, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', perRow: rows, parameters: { options: FAST }, posts: [{ statusCode: 402, body: { success: false, error_code: 'INSUFFICIENT_FUNDS', available_balance: 0 } }] });
		expect(e1.items[1]).toMatchObject({ outcome: 'replayed', reference: 'po_1' });
	});

	it('Require Business Reference turned on before the Retry does not report paid rows as not sent', async () => {
		const nodeContext: IDataObject = {};
		await runCreate({ count: 2, nodeContext, mode: 'trigger', parameters: { options: FAST }, posts: [{ statusCode: 201, body: { success: true, reference: 'po_0' } }, { statusCode: 400, body: { success: false, error_code: 'VALIDATION_ERROR' } }] });
		const e1 = await runCreate({ count: 2, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', parameters: { options: FAST, requireBusinessReference: true } });
		expect(e1.items[0]).toMatchObject({ outcome: 'replayed', reference: 'po_0' });
	});
});

describe('a stop while the request is under way, the node context saved at the stop (as n8n saves a stopped execution)', () => {
	it('the Retry of the saved execution finds the send uncertain: created, with the earlier attempt named', async () => {
		const nodeContext: IDataObject = {};
		const stop = new AbortController();
		let atStop: IDataObject | undefined;
		let firstBody: string | undefined;
		await runCreate({
			count: 1,
			nodeContext,
			signal: stop,
			parameters: { message: 'run in execution 1', options: FAST },
			posts: [
				(options: IHttpRequestOptions) => {
					firstBody = JSON.stringify(options.body);
					stop.abort();
					atStop = saved(nodeContext);
					throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
				},
			],
		});
		const e1 = await runCreate({
			count: 1,
			nodeContext: atStop as IDataObject,
			mode: 'retry',
			executionId: '2',
			parameters: { message: 'run in execution 2', options: FAST },
			posts: [(options: IHttpRequestOptions) => (JSON.stringify(options.body) === firstBody ? replay('po_E0') : { statusCode: 409, headers: {}, body: { success: false, error_code: 'IDEMPOTENCY_CONFLICT' } })],
		});
		expect(e1.items[0]).toMatchObject({ outcome: 'created', reference: 'po_E0', earlier_attempt: 'no answer in execution 1' });
	});
});

describe('a Retry refused before its request, of a row an earlier attempt may have made', () => {
	it('never says "not sent" of a row an earlier run of the execution may have made', async () => {
		const nodeContext: IDataObject = {};
		const wallet = (value: number) => ({ account: { number: 'WAL-1', balance: { value, currency: 'XOF' } } });
		await runCreate({
			count: 1,
			nodeContext,
			parameters: { options: { ...FAST, checkBalanceFirst: true } },
			account: wallet(5000),
			posts: [
				{ statusCode: 503, body: { success: false, error_code: 'PROVIDER_UNAVAILABLE' } },
				{ statusCode: 403, body: { success: false, error_code: 'LIMIT_EXCEEDED', details: { limit: { toString: 'x' } } } },
			],
		});
		const e1 = await runCreate({ count: 1, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', parameters: { options: { ...FAST, checkBalanceFirst: true } }, account: wallet(10) });
		expect(e1.items[0].attempted).toBeUndefined();
		expect(String(e1.items[0].description)).toContain('The money may have moved');
	});
});

describe('a Retry stopped before it reaches rows the run it repeats paid or may have paid', () => {
	it('does not call them "not sent": a paid row names its payment, an uncertain one says the money may have moved', async () => {
		const nodeContext: IDataObject = {};
		const rows = { 0: { businessReference: 'c-0' }, 1: { businessReference: 'c-1' }, 2: { businessReference: 'c-2' } };
		await runCreate({ count: 3, nodeContext, mode: 'trigger', perRow: rows, parameters: { options: FAST }, posts: [{ statusCode: 201, body: { success: true, reference: 'po_0' } }, { throws: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }, { throws: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }] });
		const context = { getMode: () => 'retry', getNode: () => node, getInputData: () => [{ json: {} }, { json: {} }, { json: {} }], getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => ({ ...PAYOUT, options: FAST, ...rows[itemIndex as 0 | 1 | 2] } as IDataObject)[name] ?? fallback, getContext: () => saved(nodeContext), getWorkflowDataProxy: () => ({ $thisRunIndex: 0, $: () => ({ isExecuted: true }) }), getCredentials: async () => ({ authentication: 'clientCredentials', clientId: 'c1', baseUrl: 'https://api.example.com', walletPinSecret: '1234' }), getExecutionId: () => '2', continueOnFail: () => true, logger: { info: () => {}, debug: () => {} } } as unknown as IExecuteFunctions;
		const run = await startCreateRun(context, 'payout');
		const stopped = (itemIndex: number) => run.failedJson(itemIndex, cancelledError(node, 'The execution was cancelled; this item was not sent', { itemIndex, attempted: false }));
		expect(stopped(0)).toMatchObject({ outcome: 'failed', description: expect.stringContaining('reference po_0') });
		expect(stopped(0)).not.toHaveProperty('attempted');
		expect(stopped(1)).not.toHaveProperty('attempted');
		expect(String(stopped(1).description)).toContain('The money may have moved');
	});
});

describe('a Retry whose Business Reference mapping changed, of rows the first run sent (the run is refused)', () => {
	const drop = { throws: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) };

	it('says the money may have moved for a row its first run may have made, also when stopped before reaching it', async () => {
		const nodeContext: IDataObject = {};
		const e0 = await runCreate({ count: 1, nodeContext, mode: 'trigger', perRow: { 0: { businessReference: 'a-0' } }, parameters: { options: FAST }, posts: [drop, drop] });
		expect(String(e0.items[0].description)).toContain('The money may have moved');
		for (const stopAt of [undefined, 0]) {
			const e1 = await runCreate({ count: 1, stopAt, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', perRow: { 0: { businessReference: 'A-0' } }, parameters: { options: FAST } });
			expect(e1.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
			expect(e1.items[0].attempted).toBeUndefined();
			expect(String(e1.items[0].description)).toContain('The money may have moved');
		}
	});

	it('names the payment of a row its first run paid without a Business Reference', async () => {
		const nodeContext: IDataObject = {};
		await runCreate({ count: 2, nodeContext, mode: 'trigger', parameters: { options: FAST }, posts: [{ statusCode: 201, body: { success: true, reference: 'po_0' } }, { statusCode: 400, body: { success: false, error_code: 'VALIDATION_ERROR' } }] });
		const e1 = await runCreate({ count: 2, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', perRow: { 0: { businessReference: 'r-0' }, 1: { businessReference: 'r-1' } }, parameters: { options: FAST } });
		expect(e1.items[0].attempted).toBeUndefined();
		expect(String(e1.items[0].description)).toContain('reference po_0');
	});

	it("does not answer a row from another row's payment when the mapping now gives it that row's reference", async () => {
		const nodeContext: IDataObject = {};
		const invoice = (reference: string, message: string) => ({ businessReference: reference, additionalFields: { message } });
		await runCreate({ count: 2, nodeContext, mode: 'trigger', perRow: { 0: invoice('inv-1', 'invoice 1'), 1: invoice('inv-2', 'invoice 2') }, parameters: { options: FAST }, posts: [{ statusCode: 201, body: { success: true, reference: 'po_0' } }, { statusCode: 402, body: { success: false, error_code: 'INSUFFICIENT_FUNDS', available_balance: 0 } }] });
		const e1 = await runCreate({ count: 2, nodeContext: saved(nodeContext), mode: 'retry', executionId: '2', perRow: { 0: invoice('inv-1', 'invoice 1'), 1: invoice('inv-1', 'invoice 2') }, parameters: { options: FAST } });
		expect(e1.items[1]).toMatchObject({ outcome: 'failed', attempted: false });
		expect(e1.items[1]).not.toHaveProperty('reference');
	});
});

describe('a Retry stopped before it reaches a row paid with other values than it now has', () => {
	it('does not say the row was paid', async () => {
		const nodeContext: IDataObject = {};
		await runCreate({ count: 1, nodeContext, mode: 'trigger', perRow: { 0: { businessReference: 'c-0' } }, parameters: { options: FAST }, posts: [{ statusCode: 201, body: { success: true, reference: 'po_0' } }] });
		const stopped = await runCreate({ count: 1, nodeContext: saved(nodeContext), mode: 'retry', executionId: '3', stopAt: 0, perRow: { 0: { businessReference: 'c-0', amount: 2000 } }, parameters: { options: FAST } });
		expect(stopped.items[0]).toMatchObject({ amount: 2000, attempted: false });
		expect(String(stopped.items[0].description)).not.toContain('paid it');
	});
});

describe('a stop during the velocity wait before a row is first sent', () => {
	it('leaves the row as not sent: the Retry sends its current body, with no earlier attempt', async () => {
		const nodeContext: IDataObject = {};
		const stop = new AbortController();
		let atStop: IDataObject | undefined;
		const rows = { 0: { businessReference: 'v-0' }, 1: { businessReference: 'v-1' } };
		await runCreate({ count: 2, nodeContext, mode: 'trigger', signal: stop, credential: { velocityLimit: 1, velocityWindowSeconds: 2 }, perRow: rows, parameters: { additionalFields: { message: 'old message' }, options: FAST }, onPost: () => setTimeout(() => {
			stop.abort();
			atStop = saved(nodeContext);
		}, 300) });
		const bodies: string[] = [];
		const e1 = await runCreate({ count: 2, nodeContext: atStop as IDataObject, mode: 'retry', executionId: '2', perRow: rows, parameters: { additionalFields: { message: 'new message' }, options: FAST }, onPost: (options) => bodies.push(JSON.stringify(options.body)) });
		expect(e1.items[1].earlier_attempt).toBeUndefined();
		expect(bodies[0]).toContain('new message');
	});
});

describe('a create answered with a redirect left unfollowed (a 303 after a commit)', () => {
	it('says the money may have moved', async () => {
		const e0 = await runCreate({ count: 1, nodeContext: {}, mode: 'trigger', perRow: { 0: { businessReference: 'x-0' } }, parameters: { options: FAST }, posts: [{ statusCode: 303, body: '', headers: { location: '/money/v1/payout/po_0' } }] });
		expect(String(e0.items[0].description)).toContain('The money may have moved');
	});
});

describe("an agent's calls the AI Agent makes at once (its versions before 3 run a turn's calls in parallel)", () => {
	it('are decided and sent one at a time: the 24-hour maximum and a refused party hold', async () => {
		const nodeContext: IDataObject = {};
		const flowContext: IDataObject = {};
		const ledger: IDataObject[] = [];
		const turn = () => new Promise((resolve) => setImmediate(resolve));
		const call = (amount: number, to: string) =>
			({
				getMode: () => 'webhook',
				getNode: () => ({ ...node, type: 'n8n-nodes-money.moneyTool' }),
				getInputData: () => [{ json: {} }],
				getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
					({
						...ROW.payout,
						amount,
						beneficiaryIdentifier: to,
						requireBusinessReference: false,
						allowMoneyMovementInToolMode: true,
						maxAmountInToolMode: 600,
						maxAmountPer24HoursInToolMode: 1000,
					})[name] ?? fallback,
				getContext: (type: string) => (type === 'flow' ? flowContext : nodeContext),
				getWorkflowDataProxy: () => ({ $thisRunIndex: 0 }),
				getCredentials: async () => ({ authentication: 'clientCredentials', clientId: 'c1', baseUrl: 'https://api.example.com', walletPinSecret: '1234' }),
				getExecutionId: () => '1',
				getTimezone: () => 'UTC',
				continueOnFail: () => true,
				logger: { info: () => {}, debug: () => {}, warn: () => {} },
				helpers: {
					httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
						for (let wait = 0; wait < 5; wait++) await turn();
						if (options.method === 'GET') {
							const data = [...ledger].reverse();
							return { statusCode: 200, headers: {}, body: { success: true, data, pagination: { page: 1, limit: 100, total: data.length, pages: 1 } } };
						}
						const body = options.body as IDataObject;
						const reference = `po_${ledger.length + 1}`;
						ledger.push({ reference, amount: { value: -(body.amount as number), currency: 'XOF' }, status: { code: 0, label: 'PENDING' }, created_at: new Date().toISOString(), metadata: body.metadata });
						return { statusCode: 201, headers: {}, body: { success: true, reference } };
					},
				},
			}) as unknown as IExecuteFunctions;
		const outcome = async (amount: number, to: string) => {
			const run = await startCreateRun(call(amount, to), 'payout');
			return await run.execute(0).then(
				(items) => String(items[0].json.outcome),
				(error: Error) => error.message,
			);
		};
		const atOnce = await Promise.all([outcome(550, 'GM-1002'), outcome(560, 'GM-1003'), outcome(570, 'GM-1004')]);
		expect(atOnce.filter((each) => each === 'created')).toHaveLength(1);
		expect(ledger.reduce((sum, row) => sum + Math.abs((row.amount as { value: number }).value), 0)).toBeLessThanOrEqual(1000);
		const split = await Promise.all([outcome(900, 'GM-1009'), outcome(300, 'GM-1009'), outcome(200, 'GM-1009')]);
		expect(split[0]).toContain('maximum per payment');
		expect(split.slice(1).every((each) => each.includes('refused earlier in this execution'))).toBe(true);
	});
});

/** One execution of an agent with Money tools: each tool's node context and the flow context kept across the calls, as n8n does; each call a run of its own. */
function agentExecution(answer: (body: IDataObject, n: number) => { statusCode: number; body: unknown; headers?: IDataObject } = (_body, n) => ({ statusCode: 201, body: { success: true, reference: `po_${n}` } })) {
	const nodeContexts: Record<string, IDataObject> = {};
	const flowContext: IDataObject = {};
	const posted: IDataObject[] = [];
	/** The API's idempotency: a key it acknowledged is answered again from its record. */
	const acknowledged = new Map<string, IDataObject>();
	const runs: Record<string, number> = {};
	const call = async (name: string, args: IDataObject) => {
		const parameters: IDataObject = {
			...ROW.payout,
			amount: 500,
			requireBusinessReference: false,
			allowMoneyMovementInToolMode: true,
			maxAmountInToolMode: 1000,
			allowedPartiesInToolMode: 'GM-1002',
			options: { maxRetries: 0 },
			...args,
		};
		const runIndex = (runs[name] = (runs[name] ?? -1) + 1);
		const context = {
			getMode: () => 'webhook',
			getNode: () => ({ ...node, name, type: 'n8n-nodes-money.moneyTool', parameters }),
			getInputData: () => [{ json: {} }],
			getNodeParameter: (parameter: string, _itemIndex: number, fallback?: unknown) => parameters[parameter] ?? fallback,
			getContext: (type: string) => (type === 'flow' ? flowContext : (nodeContexts[name] ??= {})),
			getWorkflowDataProxy: () => ({ $thisRunIndex: runIndex }),
			getCredentials: async () => ({ authentication: 'clientCredentials', clientId: 'c1', baseUrl: 'https://api.example.com', walletPinSecret: '1234' }),
			getExecutionId: () => '1',
			getTimezone: () => 'UTC',
			continueOnFail: () => false,
			logger: { info: () => {}, debug: () => {}, warn: () => {} },
			helpers: {
				httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
					const key = String((options.headers as IDataObject)['idempotency-key']);
					posted.push(options.body as IDataObject);
					const made = acknowledged.get(key);
					if (made) return { statusCode: 201, headers: { 'idempotent-replayed': 'true' }, body: made };
					const answered = answer(options.body as IDataObject, posted.length);
					if (answered.statusCode === 201) acknowledged.set(key, answered.body as IDataObject);
					return { headers: {}, ...answered };
				},
			},
		} as unknown as IExecuteFunctions;
		const run = await startCreateRun(context, 'payout');
		return await run.execute(0).then(
			(items) => items[0].json,
			(error: Error): IDataObject => ({ error: error.message }),
		);
	};
	return { call, posted };
}

describe("an agent's calls in one execution, read as an adversary", () => {
	it('decides a new payment under the Business Reference of an unknown outcome by the mandate, and refuses it', async () => {
		const { call, posted } = agentExecution((_body, n) => (n === 1 ? { statusCode: 502, body: '<html>bad gateway</html>' } : { statusCode: 201, body: { success: true, reference: 'po_2' } }));
		expect(String((await call('Pay', { businessReference: 'INV-77' })).error)).toContain('may have been made');
		const other = await call('Pay', { businessReference: 'INV-77', amount: 900_000, beneficiaryIdentifier: 'GM-6666' });
		expect(String(other.error)).toContain('Refused by the agent mandate');
		expect(String(other.error)).toContain('may have been made (its outcome is not known)');
		expect(posted).toHaveLength(1);
	});

	it('sends the same payment again under the key of its unknown outcome, as first decided', async () => {
		const { call, posted } = agentExecution((_body, n) => (n === 1 ? { statusCode: 502, body: '<html>bad gateway</html>' } : { statusCode: 201, body: { success: true, reference: 'po_2' } }));
		await call('Pay', { businessReference: 'INV-78' });
		expect(await call('Pay', { businessReference: 'INV-78', additionalFields: { message: 'again' } })).toMatchObject({ outcome: 'created', earlier_attempt: expect.any(String) });
		expect(posted).toHaveLength(2);
		expect(posted[1]).toEqual(posted[0]);
	});

	it.each([
		['under another Business Reference', { businessReference: 'INV-42' }, { businessReference: '42' }],
		['without a Business Reference', {}, {}],
	])('pays the same payment through two Money tools once, %s', async (_name, first, second) => {
		const { call, posted } = agentExecution();
		expect((await call('Pay supplier', first)).outcome).toBe('created');
		const again = await call('Pay driver', second);
		expect(again.outcome === 'replayed' || String(again.error).includes('the same payment was made earlier in this execution')).toBe(true);
		expect(posted.length).toBeLessThanOrEqual(2);
		expect(new Set(posted.map((body) => (body.metadata as IDataObject).n8n_agent_key)).size).toBe(1);
	});
});
