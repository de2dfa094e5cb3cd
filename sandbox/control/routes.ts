/** The control API over HTTP: its routes under /_control on the API host, each calling one SandboxControl operation. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTROL_PREFIX } from '../http/api-host';
import { sendJson } from '../http/util';
import type { SandboxRuntime } from '../runtime';
import { ControlError } from './in-process';
import { STATUS_ACTIONS, type SandboxControl } from './types';

type ControlRoute = {
	method: string;
	pattern: RegExp;
	run(control: SandboxControl, match: RegExpExecArray, body: any, query: URLSearchParams): Promise<unknown>;
};

const CONTROL_ROUTES: ControlRoute[] = [
	{
		method: 'POST',
		pattern: /^\/transactions\/([^/]+)\/(complete|fail|cancel|reverse)$/,
		run: async (control, match) => ({ success: true, data: await control.setStatus(decodeURIComponent(match[1]), STATUS_ACTIONS[match[2]]) }),
	},
	{ method: 'GET', pattern: /^\/faults$/, run: (control) => control.listFaults() },
	{ method: 'POST', pattern: /^\/faults$/, run: (control, _match, body) => control.addFault(body) },
	{ method: 'DELETE', pattern: /^\/faults$/, run: async (control) => (await control.clearFaults(), { ok: true }) },
	{ method: 'DELETE', pattern: /^\/faults\/([^/]+)$/, run: async (control, match) => (await control.removeFault(decodeURIComponent(match[1])), { ok: true }) },
	{ method: 'POST', pattern: /^\/revoke-tokens$/, run: async (control) => (await control.revokeTokens(), { ok: true }) },
	{
		method: 'POST',
		pattern: /^\/clients\/([^/]+)\/revoke-tokens$/,
		run: async (control, match) => (await control.revokeTokens(decodeURIComponent(match[1])), { ok: true }),
	},
	{ method: 'PUT', pattern: /^\/revoke-every$/, run: async (control, _match, body) => (await control.setRevokeEvery(body?.every ?? null), { ok: true }) },
	{ method: 'GET', pattern: /^\/clients\/([^/]+)$/, run: (control, match) => control.getClient(decodeURIComponent(match[1])) },
	{ method: 'PATCH', pattern: /^\/clients\/([^/]+)$/, run: (control, match, body) => control.updateClient(decodeURIComponent(match[1]), body) },
	{ method: 'GET', pattern: /^\/counters$/, run: (control) => control.counters() },
	{ method: 'POST', pattern: /^\/counters\/reset$/, run: async (control) => (await control.resetCounters(), { ok: true }) },
	{ method: 'GET', pattern: /^\/ledger$/, run: (control, _match, _body, query) => control.ledger(query.get('clientId') ?? undefined) },
	{
		method: 'PUT',
		pattern: /^\/webhook$/,
		run: async (control, _match, body) => (await control.setWebhook(body?.url ?? null, body?.scheme, body?.clientId), { ok: true }),
	},
	{ method: 'POST', pattern: /^\/webhook\/flush$/, run: async (control) => (await control.flushWebhooks(), { ok: true }) },
	{ method: 'POST', pattern: /^\/webhook\/deliver$/, run: (control, _match, body) => control.deliverEvent(body?.event, body?.copies, body?.clientId) },
	{ method: 'POST', pattern: /^\/clock$/, run: async (control, _match, body) => (await control.setClockOffset(body?.offsetSeconds), { ok: true }) },
	{ method: 'PUT', pattern: /^\/finalize$/, run: async (control, _match, body) => (await control.setFinalizeAfter(body?.afterMs ?? null), { ok: true }) },
	{ method: 'PUT', pattern: /^\/idempotency$/, run: async (control, _match, body) => (await control.setIdempotencyFingerprint(body?.fingerprint), { ok: true }) },
	{ method: 'PUT', pattern: /^\/list-tie-order$/, run: async (control, _match, body) => (await control.setListTieOrder(body?.order), { ok: true }) },
	{ method: 'POST', pattern: /^\/seed$/, run: (control, _match, body) => control.seed(body) },
	{ method: 'GET', pattern: /^\/health$/, run: (control) => control.health() },
	{ method: 'GET', pattern: /^\/info$/, run: (control) => control.info() },
];

/** HTTP face of the control API, mounted at /_control on the API host (never under the gateway prefix, never signed). */
export function createControlHandler(runtime: SandboxRuntime, control: SandboxControl) {
	return async (request: IncomingMessage, response: ServerResponse, rawBody: Buffer): Promise<void> => {
		const target = (request.url ?? '/').slice(CONTROL_PREFIX.length) || '/';
		const [path, search = ''] = target.split('?');
		const reply = (status: number, body: unknown) => sendJson(response, runtime.clock, status, body);
		const route = CONTROL_ROUTES.find((candidate) => candidate.method === request.method && candidate.pattern.test(path));
		if (!route) return reply(404, { error: 'not_found', message: `no control route ${request.method} ${path}` });
		let body: unknown = undefined;
		if (rawBody.length > 0) {
			try {
				body = JSON.parse(rawBody.toString('utf8'));
			} catch {
				return reply(400, { error: 'invalid_json', message: 'body must be JSON' });
			}
		}
		try {
			const result = await route.run(control, route.pattern.exec(path) as RegExpExecArray, body, new URLSearchParams(search));
			reply(200, result ?? { ok: true });
		} catch (error) {
			if (error instanceof ControlError) return reply(error.status, { error: error.code, message: error.message });
			reply(500, { error: 'internal_error', message: error instanceof Error ? error.message : String(error) });
		}
	};
}
