/** The control API's operations on the running sandbox (the in-process handle `sandbox.control`); routes.ts is their HTTP face. */
import { PATCHABLE_CLIENT_FIELDS, type ClientState } from '../domain/clients';
import { seedTransactions } from '../domain/seed';
import { TransitionError } from '../domain/service';
import type { ClientPatch, ClientView, IdempotencyFingerprint, ListTieOrder } from '../domain/settings';
import { CHANNELS, CHARGE_STATUSES, PAYOUT_STATUSES, type Counters, type SeedRequest, type TransactionEnvelope, type WebhookScheme } from '../domain/types';
import { deliverCopies } from '../domain/webhooks';
import { parseFault, type FaultSpec } from '../faults/injector';
import { toLedgerTransaction } from '../http/envelope';
import type { SandboxRuntime } from '../runtime';
import type { FinalStatus, HealthReport, Ledger, SandboxControl, SandboxInfo } from './types';

export class ControlError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

const WEBHOOK_SCHEMES: readonly WebhookScheme[] = ['request-style', 'body-hmac'];
const MAX_SEED_COUNT = 1_000_000;

export class InProcessControl implements SandboxControl {
	constructor(
		private readonly runtime: SandboxRuntime,
		private readonly describe: () => SandboxInfo,
	) {}

	private client(clientId?: string): ClientState {
		const client = clientId ? this.runtime.clients.get(clientId) : this.runtime.clients.primary();
		if (!client) throw new ControlError(404, 'client_not_found', `no client ${clientId}`);
		return client;
	}

	async setStatus(reference: string, status: FinalStatus): Promise<TransactionEnvelope> {
		try {
			const tx = this.runtime.service.setStatus(reference, status);
			return this.runtime.service.envelope(tx);
		} catch (error) {
			if (error instanceof TransitionError) throw new ControlError(error.code === 'not_found' ? 404 : 409, error.code, error.message);
			throw error;
		}
	}

	async addFault(fault: FaultSpec): Promise<{ id: string }> {
		try {
			return { id: this.runtime.faults.add(parseFault(fault)) };
		} catch (error) {
			throw new ControlError(400, 'invalid_fault', (error as Error).message);
		}
	}

	async removeFault(id: string): Promise<void> {
		if (!this.runtime.faults.remove(id)) throw new ControlError(404, 'fault_not_found', `no fault ${id}`);
	}

	async listFaults() {
		return this.runtime.faults.list();
	}

	async clearFaults(): Promise<void> {
		this.runtime.faults.clear();
	}

	async revokeTokens(clientId?: string): Promise<void> {
		const targets = clientId ? [this.client(clientId)] : this.runtime.clients.all();
		for (const client of targets) client.tokenGeneration++;
		this.runtime.changed();
	}

	async setRevokeEvery(every: number | null): Promise<void> {
		if (every !== null && (!Number.isInteger(every) || every < 1)) throw new ControlError(400, 'invalid_request', 'every must be an integer >= 1 or null');
		this.runtime.revokeEvery = every;
	}

	async getClient(clientId: string): Promise<ClientView> {
		return this.client(clientId).view();
	}

	async updateClient(clientId: string, patch: ClientPatch): Promise<ClientView> {
		const client = this.client(clientId);
		if (typeof patch !== 'object' || patch === null) throw new ControlError(400, 'invalid_request', 'patch must be an object');
		const unknownFields = Object.keys(patch).filter((field) => !PATCHABLE_CLIENT_FIELDS.includes(field as keyof ClientPatch));
		if (unknownFields.length > 0) {
			throw new ControlError(400, 'invalid_request', `not patchable: ${unknownFields.join(', ')}; allowed: ${PATCHABLE_CLIENT_FIELDS.join(', ')}`);
		}
		if (patch.balance !== undefined && (!Number.isSafeInteger(patch.balance) || patch.balance < 0)) {
			throw new ControlError(400, 'invalid_request', 'balance must be a non-negative integer');
		}
		if (patch.webhookScheme !== undefined && !WEBHOOK_SCHEMES.includes(patch.webhookScheme)) {
			throw new ControlError(400, 'invalid_request', `webhookScheme must be one of ${WEBHOOK_SCHEMES.join(', ')}`);
		}
		if (patch.entitlements !== undefined && !Array.isArray(patch.entitlements)) throw new ControlError(400, 'invalid_request', 'entitlements must be a list of slugs');
		client.applyPatch(patch);
		this.runtime.changed();
		return client.view();
	}

	async counters(): Promise<Counters> {
		return this.runtime.counters.snapshot();
	}

	async resetCounters(): Promise<void> {
		this.runtime.counters.reset();
	}

	async ledger(clientId?: string): Promise<Ledger> {
		const client = this.client(clientId);
		const { store, service } = this.runtime;
		const toEntry = (resource: 'charge' | 'payout') =>
			store.all(client.clientId, resource).map((tx) => toLedgerTransaction(tx, client, service.envelopeContext));
		const wallets = client.view().wallets;
		const primary = client.settings.wallets[0];
		return {
			clientId: client.clientId,
			charges: toEntry('charge'),
			payouts: toEntry('payout'),
			balance: { value: primary?.balance ?? 0, currency: primary?.currency ?? 'XOF' },
			wallets,
		};
	}

	async setWebhook(url: string | null, scheme?: WebhookScheme, clientId?: string): Promise<void> {
		if (url !== null) {
			try {
				new URL(url);
			} catch {
				throw new ControlError(400, 'invalid_request', 'url must be an absolute URL or null');
			}
		}
		if (scheme !== undefined && !WEBHOOK_SCHEMES.includes(scheme)) {
			throw new ControlError(400, 'invalid_request', `scheme must be one of ${WEBHOOK_SCHEMES.join(', ')}`);
		}
		this.client(clientId).applyPatch({ webhookUrl: url, ...(scheme ? { webhookScheme: scheme } : {}) });
		this.runtime.changed();
	}

	async flushWebhooks(): Promise<void> {
		await this.runtime.webhooks.flush();
	}

	async deliverEvent(event: object, copies = 1, clientId?: string): Promise<{ statuses: Array<number | null> }> {
		if (typeof event !== 'object' || event === null) throw new ControlError(400, 'invalid_request', 'event must be an object');
		if (!Number.isSafeInteger(copies) || copies < 1 || copies > 100) throw new ControlError(400, 'invalid_request', 'copies must be 1 to 100');
		const settings = this.client(clientId).settings;
		if (!settings.webhookUrl) throw new ControlError(409, 'no_webhook_url', 'set the webhook URL first (PUT /webhook)');
		const target = { url: settings.webhookUrl, scheme: settings.webhookScheme, secret: settings.webhookSecret };
		return { statuses: await deliverCopies(target, JSON.stringify(event), copies, this.runtime.clock.nowSeconds()) };
	}

	async setClockOffset(offsetSeconds: number): Promise<void> {
		if (typeof offsetSeconds !== 'number' || !Number.isFinite(offsetSeconds)) throw new ControlError(400, 'invalid_request', 'offsetSeconds must be a number');
		this.runtime.clock.setOffsetSeconds(offsetSeconds);
		this.runtime.changed();
	}

	async setFinalizeAfter(ms: number | null): Promise<void> {
		if (ms !== null && (typeof ms !== 'number' || ms < 0)) throw new ControlError(400, 'invalid_request', 'afterMs must be a number >= 0 or null');
		this.runtime.service.finalizeAfterMs = ms;
	}

	async setIdempotencyFingerprint(mode: IdempotencyFingerprint): Promise<void> {
		if (mode !== 'raw' && mode !== 'semantic') throw new ControlError(400, 'invalid_request', 'fingerprint must be raw or semantic');
		this.runtime.service.idempotencyFingerprint = mode;
	}

	async setListTieOrder(order: ListTieOrder): Promise<void> {
		if (order !== 'stable' && order !== 'alternating' && order !== 'shuffled') {
			throw new ControlError(400, 'invalid_request', 'order must be stable, alternating or shuffled');
		}
		this.runtime.config.listTieOrder = order;
	}

	async seed(request: SeedRequest): Promise<{ count: number }> {
		if (request?.resource !== 'charge' && request?.resource !== 'payout') throw new ControlError(400, 'invalid_request', 'resource must be charge or payout');
		if (!Number.isInteger(request.count) || request.count < 0 || request.count > MAX_SEED_COUNT) {
			throw new ControlError(400, 'invalid_request', `count must be an integer from 0 to ${MAX_SEED_COUNT}`);
		}
		const statuses = request.resource === 'charge' ? CHARGE_STATUSES : PAYOUT_STATUSES;
		if (request.status !== undefined && !statuses.includes(request.status)) throw new ControlError(400, 'invalid_request', `status must be one of ${statuses.join(', ')}`);
		if (request.channel !== undefined && !CHANNELS.includes(request.channel)) throw new ControlError(400, 'invalid_request', `channel must be one of ${CHANNELS.join(', ')}`);
		if (request.amount !== undefined && !(Number.isSafeInteger(request.amount) && request.amount > 0)) {
			throw new ControlError(400, 'invalid_request', 'amount must be a whole number > 0');
		}
		if (request.metadata !== undefined && (typeof request.metadata !== 'object' || request.metadata === null || Array.isArray(request.metadata))) {
			throw new ControlError(400, 'invalid_request', 'metadata must be an object');
		}
		this.client(request.clientId);
		try {
			const count = seedTransactions(request, this.runtime);
			this.runtime.changed();
			return { count };
		} catch (error) {
			throw new ControlError(400, 'invalid_request', (error as Error).message);
		}
	}

	async health(): Promise<HealthReport> {
		const { store, idempotency, webhooks, clock } = this.runtime;
		return {
			ok: true,
			transactions: store.size,
			idempotencyRecords: idempotency.size,
			webhookBacklog: webhooks.backlog,
			clockOffsetSeconds: clock.offsetSeconds(),
			idempotencyFingerprint: this.runtime.service.idempotencyFingerprint,
		};
	}

	async info(): Promise<SandboxInfo> {
		return this.describe();
	}
}
