import type { FinalStatus, HealthReport, SandboxControl, SandboxInfo } from './control-api';
import type { ClientPatch, ClientView, Counters, FaultSpec, Ledger, SeedRequest, TransactionEnvelope, WebhookScheme } from './types';

const ACTION_BY_STATUS: Record<FinalStatus, string> = {
	COMPLETED: 'complete',
	FAILED: 'fail',
	CANCELLED: 'cancel',
	REVERSED: 'reverse',
};

export class SandboxControlError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

/** HTTP client for the control API of a sandbox running in another process. */
export class SandboxControlClient implements SandboxControl {
	private readonly controlUrl: string;

	constructor(controlUrl: string) {
		this.controlUrl = controlUrl.replace(/\/+$/, '');
	}

	private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.controlUrl}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
		if (!response.ok) {
			throw new SandboxControlError(response.status, String(parsed.error ?? 'error'), String(parsed.message ?? `control call ${method} ${path} failed`));
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
