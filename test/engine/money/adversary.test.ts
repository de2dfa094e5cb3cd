import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialDataDecryptedObject, IConnections, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { CREATE_OUTCOME_UNKNOWN } from '../../../nodes/transport/errors';
import { startSandbox } from '../../../sandbox';
import type { SandboxCredentialSource } from '../../../sandbox/control/credential';
import { buildWorkflow, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, retryExecution, type RunResult, runWorkflow } from '../../harness/engine';
import { useSandboxEngine } from './setup';

/**
 * An adversary's read of the create path as issues 37 and 38 rewrote it (nodes/Money/helpers/create/,
 * nodes/transport/): each test states what must hold, and failed on the code it was written against.
 */

const env = useSandboxEngine({ credential: { velocityLimit: 1000 } });
const CONTINUE = { onError: 'continueRegularOutput' as const };
const RSA = 'adversary-rsa';
/** An RSA Public Key that cannot encrypt the PIN (a PEM pasted incomplete). */
const BROKEN_PEM = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----';
const FAST = { maxRetries: 0, retryBaseDelayMs: 2 };

const start: INode = { id: 'start', name: 'Start', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };

/** Start, then the given nodes one after the other. */
function workflowOf(...nodes: INode[]) {
	const all = [start, ...nodes];
	const connections: IConnections = Object.fromEntries(all.slice(0, -1).map((node, index) => [node.name, { main: [[{ node: all[index + 1].name, type: 'main', index: 0 }]] }]));
	return buildWorkflow(env.engine, { nodes: all, connections });
}

/** A payout of `$json.amount` to GM-1002, without a Business Reference unless `extra` maps one. */
function payout(extra: IDataObject = {}): IDataObject {
	const party = { beneficiaryIdentifierType: 'gm_account', beneficiaryIdentifier: 'GM-1002', beneficiaryAccountType: '' };
	return { resource: 'payout', operation: 'create', amount: '={{ $json.amount }}', currency: 'XOF', channel: 'psp-a-tg', ...party, requireBusinessReference: false, options: FAST, ...extra };
}

const rows = (...amounts: number[]): INodeExecutionData[] => amounts.map((amount) => ({ json: { amount } }));
const outputOf = (result: RunResult): IDataObject[] => result.output('Money').map((item) => item.json);

/** Stores a Money credential for the sandbox (or another API host) under `id`. */
function storeCredential(id: string, overrides: ICredentialDataDecryptedObject = {}, source: SandboxCredentialSource = env.sb.info): void {
	env.engine.credentials.set(id, CREDENTIAL_TYPE, credentialFromSandbox(source, { velocityLimit: 1000, ...overrides }));
}

async function paid(amount: number): Promise<number> {
	return (await env.sb.control.ledger()).payouts.filter((entry) => entry.amount.value === -amount).length;
}

/** The next payout create commits, and its answer is lost. */
const loseNextAnswer = async () => await env.sb.control.addFault({ route: 'post_money_v1_payout', kind: 'drop-after-commit', count: 1 });

/** What a gateway answers in place of the API, given the request's headers. */
type GatewayAnswer = (headers: IncomingMessage['headers']) => { status: number; type: string; body: string };

/**
 * A gateway in front of the sandbox on loopback: it forwards every request, and answers the next
 * payout creates with `answers`, in turn, once the API has handled them. `credentialId` names a
 * stored Money credential whose Base URL is the gateway's.
 */
async function startGateway(): Promise<{ credentialId: string; answers: GatewayAnswer[]; close: () => Promise<void> }> {
	const upstream = new URL(env.sb.info.baseUrl);
	const answers: GatewayAnswer[] = [];
	const server = createServer((incoming, outgoing) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.on('end', () => {
			const replace = incoming.method === 'POST' && /\/payout$/.test(incoming.url ?? '') ? answers.shift() : undefined;
			const target = { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } };
			const forwarded = httpRequest(target, (answer) => {
				const body: Buffer[] = [];
				answer.on('data', (chunk: Buffer) => body.push(chunk));
				answer.on('end', () => {
					const replaced = replace?.(incoming.headers);
					outgoing.writeHead(replaced?.status ?? answer.statusCode ?? 502, replaced ? { 'content-type': replaced.type } : answer.headers);
					outgoing.end(replaced?.body ?? Buffer.concat(body));
				});
			});
			forwarded.end(Buffer.concat(chunks));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const credentialId = `adversary-gateway-${port}`;
	storeCredential(credentialId, {}, { ...env.sb.info, baseUrl: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}` });
	return { credentialId, answers, close: async () => await new Promise<void>((resolve) => server.close(() => resolve())) };
}

beforeEach(async () => {
	await env.sb.control.clearFaults();
	await env.sb.control.updateClient(env.sb.info.clientId, {
		limits: { minAmount: 100, maxAmount: 5_000_000, velocityLimit: 1000, dailyCap: 500_000_000, monthlyCap: 5_000_000_000 },
		balance: 100_000_000,
	});
});

describe('what the node remembers sending is what went out', () => {
	it('a payout whose PIN could not be encrypted (nothing sent), then made by the Retry through an attempt whose answer was lost, is created by that Retry, not replayed', async () => {
		storeCredential(RSA, { rsaPublicKey: BROKEN_PEM });
		const workflow = workflowOf(moneyNode({ parameters: payout({ options: { ...FAST, maxRetries: 1 } }) as never, credentialId: RSA }));
		const failed = await runWorkflow(env.engine, workflow, { items: rows(84_001), mode: 'trigger' });
		expect(failed.error()?.message).toBe('The RSA Public Key of the Money API credential cannot encrypt the PIN');
		expect(await paid(84_001)).toBe(0);

		// The user clears the broken key (the PIN goes plain) and retries; the first attempt commits and its answer is lost.
		storeCredential(RSA);
		await loseNextAnswer();
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(await paid(84_001)).toBe(1);
		expect(outputOf(retried)[0]).toMatchObject({ outcome: 'created', status: 'PENDING' });
	});
});

describe('reading every row before any request changes nothing a user sees', () => {
	it('Check Balance First still holds when the first row cannot read its Options: no payout of a run that does not fit', async () => {
		// Request Timeout mapped from a column of the sheet; the first row's cell is empty, so its Options fail to evaluate ("cannot convert to integer").
		const options = { ...FAST, checkBalanceFirst: true, requestTimeoutMs: '={{ $json.timeoutMs.toInt() }}' };
		const money = moneyNode({ parameters: payout({ options }) as never, settings: CONTINUE });
		const items = [85_001, 85_002, 85_003].map((amount, index) => ({ json: { amount, timeoutMs: index === 0 ? '' : '30000' } }));
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 100_000 });
		const result = await runWorkflow(env.engine, workflowOf(money), { items, mode: 'trigger' });
		const outcomes = outputOf(result).map((item) => item.outcome);
		expect({ outcomes, paid: [await paid(85_002), await paid(85_003)] }).toEqual({ outcomes: ['failed', 'failed', 'failed'], paid: [0, 0] });
	});
});

describe('a payout whose earlier send went unanswered is never "not sent"', () => {
	it('Check Balance First refusing a Retry whose row the failed run sent without an answer says the money may have moved, not attempted: false', async () => {
		const money = moneyNode({ parameters: payout({ options: { ...FAST, checkBalanceFirst: true } }) as never });
		await loseNextAnswer();
		const failed = await runWorkflow(env.engine, workflowOf(money), { items: rows(86_001), mode: 'trigger' });
		expect(failed.error()?.description).toContain(CREATE_OUTCOME_UNKNOWN);
		expect(await paid(86_001)).toBe(1);

		// The wallet was spent meanwhile; the Retry (On Error: Continue, to read the item) meets Check Balance First.
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 1000 });
		const retried = await retryExecution(env.engine, workflowOf({ ...money, ...CONTINUE }), failed);
		const item = outputOf(retried)[0];
		expect(item.outcome).toBe('failed');
		expect({ attempted: item.attempted, saysMayHaveMoved: String(item.description).includes(CREATE_OUTCOME_UNKNOWN) }).toEqual({ attempted: undefined, saysMayHaveMoved: true });
	});
});

describe('a Retry pays the rows paid before once', () => {
	it('an API that no longer holds the idempotency record of a row the failed run paid (its records expire, or are evicted): the Retry does not pay that row again', async () => {
		// An API that keeps the record of one key only: each payout evicts the record of the one before.
		const forgetful = await startSandbox({ finalizeAfterMs: null, config: { idempotencyCapacity: 1 } });
		const FORGETFUL = 'adversary-forgetful';
		storeCredential(FORGETFUL, {}, forgetful.info);
		try {
			await forgetful.control.updateClient(forgetful.info.clientId, { balance: 200_000, limits: { velocityLimit: 1000 } });
			const workflow = workflowOf(moneyNode({ parameters: payout() as never, credentialId: FORGETFUL }));
			const failed = await runWorkflow(env.engine, workflow, { items: rows(93_001, 93_002, 900_003), mode: 'trigger' });
			expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');

			await forgetful.control.updateClient(forgetful.info.clientId, { balance: 10_000_000 });
			const retried = await retryExecution(env.engine, workflow, failed);
			const payouts = (await forgetful.control.ledger()).payouts.map((entry) => -entry.amount.value);
			const count = (amount: number) => payouts.filter((paidAmount) => paidAmount === amount).length;
			expect({ paid: [count(93_001), count(93_002), count(900_003)], outcomes: outputOf(retried).map((item) => item.outcome) }).toEqual({
				paid: [1, 1, 1],
				outcomes: ['replayed', 'replayed', 'created'],
			});
		} finally {
			await forgetful.close();
		}
	});

	it('a run refused whole by Require Business Reference (nothing sent), retried with the Business Reference the refusal asked for, pays each row once', async () => {
		const stamp = Date.now();
		const original = moneyNode({ parameters: payout({ requireBusinessReference: true }) as never });
		const items = [89_001, 89_002].map((amount) => ({ json: { amount, order: `order-${amount}-${stamp}` } }));
		const failed = await runWorkflow(env.engine, workflowOf(original), { items, mode: 'trigger' });
		expect(failed.error()?.message).toContain('map your own payout ID');
		expect([await paid(89_001), await paid(89_002)]).toEqual([0, 0]);

		const mapped = { ...original, parameters: { ...original.parameters, businessReference: '={{ $json.order }}' } } as INode;
		const retried = await retryExecution(env.engine, workflowOf(mapped), failed);
		expect({ error: retried.error()?.message, outcomes: outputOf(retried).map((item) => item.outcome) }).toEqual({ error: undefined, outcomes: ['created', 'created'] });
		expect([await paid(89_001), await paid(89_002)]).toEqual([1, 1]);
	});
});

describe('every payment has one execution that calls it created', () => {
	// A limit (docs/idempotency.md, "What `outcome` says"): each Retry of an execution starts from that execution's own saved memory, so two Retries of the same original both learn the payment its lost answer made. Retry the latest failed Retry.
	it.failing('a payout whose answer was lost, found by two Retries of the same failed execution (the first failed at a later step), is called created by one of them only', async () => {
		// A step after the payouts that fails on these items: a Transaction Get whose ID reads a field they lack.
		const check = moneyNode({ name: 'Check', parameters: { resource: 'transaction', operation: 'get', transactionId: '={{ $json.noSuchField }}' } as never });
		const workflow = workflowOf(moneyNode({ parameters: payout() as never }), check);
		await loseNextAnswer();
		const e0 = await runWorkflow(env.engine, workflow, { items: rows(92_001), mode: 'trigger' });
		expect(e0.error()?.description).toContain(CREATE_OUTCOME_UNKNOWN);

		// E1 learns that the payout was made, then fails at Check; the user retries the original execution again (n8n 2.41 allows it).
		const e1 = await retryExecution(env.engine, workflow, e0);
		expect(e1.run.data.resultData.lastNodeExecuted).toBe('Check');
		const e2 = await retryExecution(env.engine, workflow, e0);
		expect(await paid(92_001)).toBe(1);
		const outcomes = [e1, e2].map((execution) => outputOf(execution)[0]?.outcome);
		expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
	});
});

describe("answers that are not the Money API's", () => {
	it("a create answered 4xx with a page that is not the API's error envelope (the specification's decision D7) after the API made it: the error says the money may have moved, and its Retry says created, once", async () => {
		const gateway = await startGateway();
		try {
			const workflow = workflowOf(moneyNode({ parameters: payout() as never, credentialId: gateway.credentialId }));
			gateway.answers.push(() => ({ status: 408, type: 'text/html', body: '<html><body><h1>408 Request Time-out</h1></body></html>' }));
			const failed = await runWorkflow(env.engine, workflow, { items: rows(87_001), mode: 'trigger' });
			expect(await paid(87_001)).toBe(1);
			const retried = await retryExecution(env.engine, workflow, failed);
			expect(await paid(87_001)).toBe(1);
			const { outcome, earlier_attempt } = outputOf(retried)[0] ?? {};
			expect({ failedSaysMayHaveMoved: String(failed.error()?.description).includes(CREATE_OUTCOME_UNKNOWN), retried: { outcome, earlier_attempt } }).toEqual({
				failedSaysMayHaveMoved: true,
				retried: { outcome: 'created', earlier_attempt: `HTTP 408 in execution ${failed.executionId}` },
			});
		} finally {
			await gateway.close();
		}
	});

	it('a gateway error page that echoes the request headers puts neither the access token nor the signature into the failed item', async () => {
		const gateway = await startGateway();
		const seen: string[] = [];
		try {
			gateway.answers.push((headers) => {
				const authorization = String(headers.authorization ?? '');
				const signature = String(headers['x-hmac-signature'] ?? '');
				seen.push(authorization.replace(/^Bearer /, ''), signature);
				return { status: 502, type: 'text/plain', body: `502 upstream reset. authorization: ${authorization} x-hmac-signature: ${signature}` };
			});
			const money = moneyNode({ parameters: payout() as never, credentialId: gateway.credentialId, settings: CONTINUE });
			const text = JSON.stringify(outputOf(await runWorkflow(env.engine, workflowOf(money), { items: rows(88_001), mode: 'trigger' })));
			expect(seen.filter((secret) => secret.length > 8)).toHaveLength(2);
			expect(['access token', 'signature'].filter((_name, index) => text.includes(seen[index]))).toEqual([]);
		} finally {
			await gateway.close();
		}
	});
});

describe('Preview Only says what the real run does', () => {
	it('a credential whose RSA Public Key cannot encrypt the PIN: the preview refuses every row, as the real run does', async () => {
		storeCredential(RSA, { rsaPublicKey: BROKEN_PEM });
		const run = async (preview: boolean) => {
			const money = moneyNode({ parameters: payout({ businessReference: `=rsa-{{ $json.amount }}-${Date.now()}`, preview }) as never, credentialId: RSA, settings: CONTINUE });
			return outputOf(await runWorkflow(env.engine, workflowOf(money), { items: rows(91_001, 91_002), mode: 'trigger' }));
		};
		const real = await run(false);
		expect(real.map((item) => [item.outcome, item.error])).toEqual(Array(2).fill(['failed', 'The RSA Public Key of the Money API credential cannot encrypt the PIN']));
		const preview = await run(true);
		expect(preview.map((item) => [item.verdict, item.reason])).toEqual(real.map((item) => ['would refuse', item.error]));
	});
});
