import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { CREDENTIAL_TYPE, credentialFromSandbox } from '../../harness/engine';
import type { MoneyNodeSuite } from './setup';

/**
 * A loopback front of the sandbox's API host that answers payout creates from a script: 'forward'
 * passes the request on and returns the sandbox's answer; 'forward-then-503' passes it on (the
 * sandbox commits) and answers 503, as a proxy does whose upstream committed; otherwise it answers
 * the given status and body itself, without forwarding (an API that checks limits or balance before
 * its idempotency record, which docs/idempotency.md allows for: "a 402 checked before the API's
 * idempotency record").
 */
export type Step = 'forward' | 'forward-then-503' | { status: number; body: IDataObject };

/** Answers from the front: `replayHeader: false` drops the sandbox's `idempotent-replayed` header (the specification names none). */
export interface FrontOptions {
	replayHeader?: boolean;
}

export async function startFront(upstream: string, script: Step[], frontOptions: FrontOptions = {}): Promise<{ baseUrl: string; close: () => Promise<void>; seen: () => number }> {
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

const FRONT_CREDENTIAL_ID = 'money-front';

/** A velocity refusal with the details the node learns from (1000 per 1 s: the wait is the node's minimum, 1 s). */
export const VELOCITY_REFUSAL: Step = {
	status: 403,
	body: { success: false, error_code: 'LIMIT_EXCEEDED', message: 'velocity limit reached', details: { limit: 'velocity', velocity_limit: 1000, velocity_window_seconds: 1 } },
};

export async function withFront<T>(env: MoneyNodeSuite, script: Step[], body: (credentialId: string, seen: () => number) => Promise<T>, frontOptions: FrontOptions = {}): Promise<T> {
	await env.run({ resource: 'account', operation: 'get', options: { maxRetries: 0 } }); // a fresh token: the script meets the creates, not a 401
	const front = await startFront(env.sb.info.baseUrl, script, frontOptions);
	env.engine.credentials.set(FRONT_CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox({ ...env.sb.info, baseUrl: front.baseUrl }, { velocityLimit: 1000 }));
	try {
		return await body(FRONT_CREDENTIAL_ID, front.seen);
	} finally {
		await front.close();
	}
}

/** How many payouts of exactly this amount the sandbox's first client made. */
export async function paidWith(env: MoneyNodeSuite, amount: number): Promise<number> {
	return (await env.sb.control.ledger()).payouts.filter((entry) => entry.amount.value === -amount).length;
}
