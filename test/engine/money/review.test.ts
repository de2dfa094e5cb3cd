import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IConnections, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { buildWorkflow, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, retryExecution, runMoneyNode, runWorkflow } from '../../harness/engine';
import { CONTINUE, useMoneyNode } from './setup';

/*
 * Adversarial review of the Money node's money paths (issue 29). Each `it.failing` is a finding:
 * it shows the node paying twice, reporting a payment wrongly, or losing one, and passes once fixed.
 */
const env = useMoneyNode();
const { run, json, payout } = env;

/**
 * A loopback front of the sandbox's API host that answers payout creates from a script: 'forward'
 * passes the request on and returns the sandbox's answer; 'forward-then-503' passes it on (the
 * sandbox commits) and answers 503, as a proxy does whose upstream committed; otherwise it answers
 * the given status and body itself, without forwarding (an API that checks limits or balance before
 * its idempotency record, which docs/idempotency.md allows for: "a 402 checked before the API's
 * idempotency record").
 */
type Step = 'forward' | 'forward-then-503' | { status: number; body: IDataObject };

/** Answers from the front: `replayHeader: false` drops the sandbox's `idempotent-replayed` header (the specification names none). */
interface FrontOptions {
	replayHeader?: boolean;
}

async function startFront(upstream: string, script: Step[], frontOptions: FrontOptions = {}): Promise<{ baseUrl: string; close: () => Promise<void>; seen: () => number }> {
	let creates = 0;
	const origin = new URL(upstream).origin;
	const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			void (async () => {
				const isCreate = req.method === 'POST' && /\/money\/v1\/payout$/.test(req.url ?? '');
				const step: Step = isCreate ? (script[creates++] ?? 'forward') : 'forward';
				if (typeof step === 'object') {
					res.writeHead(step.status, { 'content-type': 'application/json' });
					res.end(JSON.stringify(step.body));
					return;
				}
				const headers: Record<string, string> = {};
				for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
				const answer = await fetch(`${origin}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : Buffer.concat(chunks) });
				const text = await answer.text();
				if (step === 'forward-then-503') {
					res.writeHead(503, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ success: false, error_code: 'PROVIDER_UNAVAILABLE', message: 'upstream timed out' }));
					return;
				}
				const out: Record<string, string> = { 'content-type': 'application/json' };
				const replayed = answer.headers.get('idempotent-replayed');
				if (replayed && frontOptions.replayHeader !== false) out['idempotent-replayed'] = replayed;
				res.writeHead(answer.status, out);
				res.end(text);
			})();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const path = new URL(upstream).pathname.replace(/\/+$/, '');
	return {
		baseUrl: `http://127.0.0.1:${port}${path}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
		seen: () => creates,
	};
}

const FRONT_CREDENTIAL_ID = 'money-review-front';

/** A velocity refusal with the details the node learns from (1000 per 1 s: the wait is the node's minimum, 1 s). */
const VELOCITY_REFUSAL: Step = {
	status: 403,
	body: { success: false, error_code: 'LIMIT_EXCEEDED', message: 'velocity limit reached', details: { limit: 'velocity', velocity_limit: 1000, velocity_window_seconds: 1 } },
};

async function withFront<T>(script: Step[], body: (credentialId: string, seen: () => number) => Promise<T>, frontOptions: FrontOptions = {}): Promise<T> {
	await run({ resource: 'account', operation: 'get', options: { maxRetries: 0 } }); // a fresh token: the script meets the creates, not a 401
	const front = await startFront(env.sb.info.baseUrl, script, frontOptions);
	env.engine.credentials.set(FRONT_CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox({ ...env.sb.info, baseUrl: front.baseUrl }, { velocityLimit: 1000 }));
	try {
		return await body(FRONT_CREDENTIAL_ID, front.seen);
	} finally {
		await front.close();
	}
}

async function paidWith(amount: number): Promise<number> {
	return (await env.sb.control.ledger()).payouts.filter((entry) => entry.amount.value === -amount).length;
}

describe('Money node review: a velocity refusal between a 503-after-commit and the next send', () => {
	/*
	 * FINDING R1 (send.ts `unanswered` / createRun.ts sendPaced). The velocity loop of CreateRun.send
	 * calls the request again after a velocity refusal, and send.ts adds a call's unanswered attempts
	 * to `unanswered` only when that call succeeds. A call whose first attempt got a 503 after the API
	 * committed, and whose retry met a velocity refusal, loses that count. Its next call is then
	 * answered from the API's idempotency record, and the node reports `outcome: "replayed"` ("nothing
	 * moved now") for a payout this very call made; the pacing does not count it either.
	 */
	it.failing('R1a: reports a payout made by this call (503 after commit, then a velocity refusal) as created, not replayed', async () => {
		const amount = 61_001;
		await withFront(['forward-then-503', VELOCITY_REFUSAL, 'forward'], async (credentialId) => {
			const result = await run(payout({ amount, options: { maxRetries: 1, retryBaseDelayMs: 1 } }), { credentialId });
			expect(await paidWith(amount)).toBe(1);
			expect(json(result).outcome).toBe('created'); // prints "replayed"
		});
	});

	/*
	 * FINDING R1b. The same lost count on the failure path: when the call after the velocity wait is
	 * refused (402 INSUFFICIENT_FUNDS checked before the idempotency record), send.ts sees neither an
	 * unanswered attempt in this call nor in `unanswered`: the error reads as a clean refusal ("Top up
	 * the merchant wallet"), without "The money may have moved", although the first attempt committed
	 * the payout; and sentCreates forgets the key (a 4xx of a body never left unanswered), so a Retry
	 * with a Business Reference mapped since is not refused by place and pays the row again.
	 */
	it.failing('R1b: says the money may have moved when a payout whose first attempt got a 503 is refused after a velocity wait', async () => {
		const amount = 61_002;
		const insufficient: Step = { status: 402, body: { success: false, error_code: 'INSUFFICIENT_FUNDS', message: 'payout amount exceeds the available balance', available_balance: 0 } };
		await withFront(['forward-then-503', VELOCITY_REFUSAL, insufficient], async (credentialId) => {
			const result = await run(payout({ amount, options: { maxRetries: 1, retryBaseDelayMs: 1 } }), { credentialId, settings: CONTINUE });
			expect(await paidWith(amount)).toBe(1);
			const item = json(result);
			expect(item.outcome).toBe('failed');
			expect(String(item.description)).toContain('The money may have moved'); // prints the INSUFFICIENT_FUNDS advice alone
		});
	});
});

describe('Money node review: a stop during the velocity wait after a 503-after-commit', () => {
	/*
	 * FINDING R1c. The same lost count as R1, on the cancel path: stopped while it waits out the
	 * velocity refusal, the item is reported `attempted: false` ("not sent") and counted among the
	 * items not sent, and sentCreates does not keep it as uncertain, though its first attempt
	 * committed the payout. The run's message invites sending it again.
	 */
	it.failing('R1c: a payout whose first attempt got a 503 after commit, stopped during the velocity wait, is not reported as not sent', async () => {
		const amount = 61_003;
		await withFront(['forward-then-503', VELOCITY_REFUSAL], async (credentialId, seen) => {
			let stopped: Promise<void> | undefined;
			const result = await runMoneyNode(env.engine, {
				parameters: payoutParameters({ amount, identifier: 'GM-1002', options: { maxRetries: 1, retryBaseDelayMs: 1 } }) as never,
				credentialId,
				settings: CONTINUE,
				mode: 'trigger',
				onStart: (stop) => {
					stopped = (async () => {
						while (seen() < 2) await new Promise((resolve) => setTimeout(resolve, 10));
						await new Promise((resolve) => setTimeout(resolve, 200));
						stop();
					})();
				},
			});
			await stopped;
			expect(await paidWith(amount)).toBe(1);
			const item = result.output('Money')[0]?.json as IDataObject;
			expect(item.cancelled).toBe(true);
			expect(item.attempted).toBeUndefined(); // prints false: "not sent"
		});
	});
});

/** Hands the test's rows on, as the rows a sheet or database node would produce. */
const trigger: INode = { id: 'trigger', name: 'Start', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };

function chain(nodes: INode[]): IConnections {
	return { [nodes[0].name]: { main: [[{ node: nodes[1].name, type: 'main', index: 0 }]] } };
}

function rows(...entries: Array<[string, number]>): INodeExecutionData[] {
	return entries.map(([identifier, amount]) => ({ json: { identifier, amount } }));
}

function payoutParameters(extra: IDataObject = {}): IDataObject {
	return {
		resource: 'payout',
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: 'XOF',
		identifierType: 'gm_account',
		identifier: '={{ $json.identifier }}',
		channel: 'psp-a-tg',
		accountType: '',
		requireBusinessReference: false,
		options: { maxRetries: 0, retryBaseDelayMs: 2 },
		...extra,
	};
}

describe('Money node review: what a Retry reports', () => {
	/*
	 * FINDING R3 (send.ts isReplayAnswer). The Money API's specification (section 5.6) says a repeated
	 * key "returns the original cached response"; it names no replay header. `outcome` rests on the
	 * sandbox's `idempotent-replayed` header alone, although the node knows from its own memory
	 * (sentCreates: accepted under this key in the run this execution repeats) that nothing moved now.
	 * Against an API that answers a replay as the spec says, a Retry of a payout run whose rows 1-2
	 * were paid reports them `created` again: the money moved, says the item, a second time; a
	 * workflow that books or notifies on `outcome: created` does it twice.
	 */
	it.failing('R3: a Retry reports rows paid in the run it repeats as replayed, also when the API marks no replay', async () => {
		await withFront(
			[],
			async (credentialId) => {
				const amounts = [63_001, 63_002, 900_063];
				const money = moneyNode({ parameters: payoutParameters() as never, credentialId });
				const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
				await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
				const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'trigger' });
				expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
				await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
				const retried = await retryExecution(env.engine, workflow, failed);
				expect(await Promise.all(amounts.map(paidWith))).toEqual([1, 1, 1]);
				expect(retried.output('Money').map((item) => item.json.outcome)).toEqual(['replayed', 'replayed', 'created']); // prints created ×3
			},
			{ replayHeader: false },
		);
	});

	/*
	 * FINDING R4 (refusals/index.ts withoutReferenceRefusal). A manual run may create without a
	 * Business Reference (Require Business Reference applies to production executions only), and
	 * docs/idempotency.md tells the user of a manual run that failed part-way "to finish a failed run,
	 * Retry it from the Executions list". That Retry runs in mode `retry`, which the setting counts
	 * as production: every row is refused ("is required in production executions"), the rows already
	 * paid included, though the node's memory of the run came back and every key is the same. The
	 * way out the user is left with, running it again from the editor, pays rows 1-2 again.
	 */
	it.failing('R4: the Retry of a manual run without a Business Reference finishes the run (Require Business Reference on)', async () => {
		const amounts = [64_001, 64_002, 900_064];
		const money = moneyNode({ parameters: { ...payoutParameters(), requireBusinessReference: true } as never });
		const workflow = buildWorkflow(env.engine, { nodes: [trigger, money], connections: chain([trigger, money]) });
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
		const failed = await runWorkflow(env.engine, workflow, { items: rows(['GM-1002', amounts[0]], ['GM-1003', amounts[1]], ['GM-1002', amounts[2]]), mode: 'manual' });
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 10_000_000 });
		const retried = await retryExecution(env.engine, workflow, failed);
		expect(retried.error()).toBeUndefined(); // prints "Business Reference (idempotency-key) is required in production executions …"
		expect(await Promise.all(amounts.map(paidWith))).toEqual([1, 1, 1]);
	});
});

describe('Money node review: a create never sent', () => {
	/*
	 * FINDING R5 (errors.ts mayHaveBeenCarriedOut). When the token endpoint cannot be reached (a
	 * network error inside the credential's preAuthentication, not an HTTP answer), the create was
	 * never sent to the API host, yet the failure has no status and does not match /token request
	 * failed/: it is counted as an unanswered create. The item says "The money may have moved" for a
	 * payout that was never sent, and sentCreates keeps it as uncertain for good (a later Retry with
	 * a Business Reference mapped refuses the row as "already sent").
	 */
	it.failing('R5: a payout whose access token could not be fetched (token host down) does not say the money may have moved', async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const id = 'money-review-token-down';
		env.engine.credentials.set(id, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { tokenUrl: `http://127.0.0.1:${port}`, accessToken: '', velocityLimit: 1000 }));
		const result = await run(payout({ amount: 65_001, options: { maxRetries: 0 } }), { credentialId: id, settings: CONTINUE });
		const item = json(result);
		expect(item.outcome).toBe('failed');
		expect(await paidWith(65_001)).toBe(0);
		expect(String(item.description)).not.toContain('The money may have moved'); // prints "No answer was received … The money may have moved …"
	});
});

describe('Money node review: Business References that are numbers', () => {
	/*
	 * FINDING R6 (input.ts readReference). A Business Reference mapped from a number is taken as
	 * String(value) whatever its size. Order ids of 64 bits (snowflake ids, 19 digits) arrive in n8n
	 * items through JSON.parse as doubles: 9007199254740993 and 9007199254740992 are one number, so two
	 * orders get one Business Reference. Their payouts are identical rows (same beneficiary and
	 * amount), which the run accepts as "one payment listed twice": the first order is paid, the
	 * second comes back `replayed`, reported as paid, and never paid. An integer beyond
	 * Number.MAX_SAFE_INTEGER is not a reference the node can trust; it should be refused (map it as
	 * text), like the other references that are not references.
	 */
	it.failing('R6: two orders whose 64-bit ids collapse to one double are not paid as one payout', async () => {
		const items = (JSON.parse('[{"order":9007199254740993,"amount":66001},{"order":9007199254740992,"amount":66001}]') as IDataObject[]).map((row) => ({ json: row }));
		const result = await run(payout({ amount: '={{ $json.amount }}', businessReference: '={{ $json.order }}' }), { items, settings: CONTINUE });
		const outcomes = result.output('Money').map((item) => item.json.outcome);
		expect(outcomes).not.toContain('replayed'); // prints ["created", "replayed"]: one payout for two orders
	});
});
