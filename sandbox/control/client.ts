import type { ClientPatch, ClientView, IdempotencyFingerprint, ListTieOrder } from '../domain/settings';
import type { Counters, SeedRequest, TransactionEnvelope, WebhookScheme } from '../domain/types';
import type { FaultSpec } from '../faults/injector';
import type { FinalStatus, HealthReport, SandboxControl, SandboxInfo } from './types';
import { fetchText } from './fetch-text';
import type { Ledger } from './types';

const ACTION_BY_STATUS: Record<FinalStatus, string> = {
	COMPLETED: 'complete',
	FAILED: 'fail',
	CANCELLED: 'cancel',
	REVERSED: 'reverse',
};

/** How long one control call may take before it is aborted, unless the client is given another bound. */
export const DEFAULT_CONTROL_TIMEOUT_MS = 30_000;

export interface SandboxControlClientOptions {
	/** Per-call bound in milliseconds (fetch-text.ts); null: no bound. Default 30 000. */
	timeoutMs?: number | null;
}

/** A control call the sandbox refused: its HTTP status and the `error` code of its `{error, message}` body. */
export class SandboxControlError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
		this.name = 'SandboxControlError';
	}
}

/**
 * HTTP client for the control API of a sandbox running in another process (the routes of
 * sandbox/README.md). The only one: tests, benchmarks and scripts all use it.
 */
export class SandboxControlClient implements SandboxControl {
	private readonly controlUrl: string;
	private readonly timeoutMs: number | null;

	constructor(controlUrl: string, options: SandboxControlClientOptions = {}) {
		this.controlUrl = controlUrl.replace(/\/+$/, '');
		this.timeoutMs = options.timeoutMs === undefined ? DEFAULT_CONTROL_TIMEOUT_MS : options.timeoutMs;
	}

	/**
	 * One control call: `path` below the control URL, `body` sent as JSON. Resolves the parsed
	 * JSON answer (`{}` for an empty one, the text itself if it is not JSON); a non-2xx answer
	 * rejects with a SandboxControlError.
	 */
	async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetchText(`${this.controlUrl}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			timeoutMs: this.timeoutMs,
		});
		const text = response.text;
		const parsed = parseAnswer(text);
		if (response.status < 200 || response.status >= 300) {
			const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
			const message = fields.message ?? `control call ${method} ${path} failed: HTTP ${response.status} ${text.slice(0, 300)}`;
			throw new SandboxControlError(response.status, String(fields.error ?? 'error'), String(message));
		}
		return parsed as T;
	}

	async setStatus(reference: string, status: FinalStatus): Promise<TransactionEnvelope> {
		const result = await this.call<{ data: TransactionEnvelope }>('POST', `/transactions/${encodeURIComponent(reference)}/${ACTION_BY_STATUS[status]}`);
		return result.data;
	}

	addFault(fault: FaultSpec): Promise<{ id: string }> {
		return this.call('POST', '/faults', fault);
	}

	async removeFault(id: string): Promise<void> {
		await this.call('DELETE', `/faults/${encodeURIComponent(id)}`);
	}

	listFaults(): Promise<Array<FaultSpec & { id: string; remaining: number | null }>> {
		return this.call('GET', '/faults');
	}

	async clearFaults(): Promise<void> {
		await this.call('DELETE', '/faults');
	}

	async revokeTokens(clientId?: string): Promise<void> {
		await this.call('POST', clientId ? `/clients/${encodeURIComponent(clientId)}/revoke-tokens` : '/revoke-tokens');
	}

	async setRevokeEvery(every: number | null): Promise<void> {
		await this.call('PUT', '/revoke-every', { every });
	}

	getClient(clientId: string): Promise<ClientView> {
		return this.call('GET', `/clients/${encodeURIComponent(clientId)}`);
	}

	updateClient(clientId: string, patch: ClientPatch): Promise<ClientView> {
		return this.call('PATCH', `/clients/${encodeURIComponent(clientId)}`, patch);
	}

	counters(): Promise<Counters> {
		return this.call('GET', '/counters');
	}

	async resetCounters(): Promise<void> {
		await this.call('POST', '/counters/reset');
	}

	ledger(clientId?: string): Promise<Ledger> {
		return this.call('GET', clientId ? `/ledger?clientId=${encodeURIComponent(clientId)}` : '/ledger');
	}

	async setWebhook(url: string | null, scheme?: WebhookScheme, clientId?: string): Promise<void> {
		await this.call('PUT', '/webhook', { url, scheme, clientId });
	}

	async flushWebhooks(): Promise<void> {
		await this.call('POST', '/webhook/flush');
	}

	deliverEvent(event: object, copies?: number, clientId?: string): Promise<{ statuses: Array<number | null> }> {
		return this.call('POST', '/webhook/deliver', { event, copies, clientId });
	}

	async setClockOffset(offsetSeconds: number): Promise<void> {
		await this.call('POST', '/clock', { offsetSeconds });
	}

	async setFinalizeAfter(ms: number | null): Promise<void> {
		await this.call('PUT', '/finalize', { afterMs: ms });
	}

	async setIdempotencyFingerprint(mode: IdempotencyFingerprint): Promise<void> {
		await this.call('PUT', '/idempotency', { fingerprint: mode });
	}

	async setListTieOrder(order: ListTieOrder): Promise<void> {
		await this.call('PUT', '/list-tie-order', { order });
	}

	seed(request: SeedRequest): Promise<{ count: number }> {
		return this.call('POST', '/seed', request);
	}

	health(): Promise<HealthReport> {
		return this.call('GET', '/health');
	}

	info(): Promise<SandboxInfo> {
		return this.call('GET', '/info');
	}
}

function parseAnswer(text: string): unknown {
	if (!text) return {};
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}
