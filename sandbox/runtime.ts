import { ClientRegistry } from './domain/clients';
import { SandboxClock } from './domain/clock';
import { Counters } from './domain/counters';
import { Directory } from './domain/directory';
import { loadState, StateWriter, type PersistedState } from './domain/persistence';
import { MoneyService } from './domain/service';
import type { ResolvedConfig } from './domain/settings';
import { IdempotencyStore, type TieOrder, TransactionStore } from './domain/store';
import type { Resource, Transaction } from './domain/types';
import { WebhookDispatcher } from './domain/webhooks';
import { FaultInjector } from './faults/injector';
import type { EnvelopeContext } from './http/envelope';
import { TokenStore } from './security/auth';

export interface RuntimeOptions {
	tokenTtlSeconds: number;
	finalizeAfterMs: number | null;
	statePath?: string;
}

/** Everything the API host, token host and control API share. */
export class SandboxRuntime {
	readonly clock = new SandboxClock();
	readonly clients: ClientRegistry;
	readonly store = new TransactionStore();
	readonly idempotency: IdempotencyStore;
	readonly directory: Directory;
	readonly counters: Counters;
	readonly faults: FaultInjector;
	readonly tokens: TokenStore;
	readonly webhooks: WebhookDispatcher;
	readonly service: MoneyService;
	readonly stateWriter: StateWriter | null;
	revokeEvery: number | null = null;
	/** List requests answered, for SandboxConfig.listTieOrder `alternating` and `shuffled`. */
	listRequests = 0;
	apiOrigin = 'http://127.0.0.1';
	tokenTtlSeconds: number;

	constructor(
		readonly config: ResolvedConfig,
		options: RuntimeOptions,
	) {
		this.tokenTtlSeconds = options.tokenTtlSeconds;
		const persisted = options.statePath ? loadState(options.statePath) : null;
		if (persisted) this.mergePersistedClients(persisted);
		this.clients = new ClientRegistry(config.clients);
		this.idempotency = new IdempotencyStore(config.idempotencyCapacity);
		this.directory = new Directory(config.directory);
		this.counters = new Counters(config.idempotencyCapacity);
		this.faults = new FaultInjector(config.seed);
		this.tokens = new TokenStore(config.tokenCapacity, config.tokenSnapshotsEntitlements);
		this.webhooks = new WebhookDispatcher(config.webhooks, this.counters, this.clock);
		const envelopeContext: EnvelopeContext = {
			payoutTypeLabel: config.payoutTypeLabel,
			updatedAt: config.envelopeUpdatedAt,
			naiveTimestampsOffsetMinutes: config.naiveTimestampsOffsetMinutes,
			createdAtToSecond: config.createdAtWrittenToSecond,
			redirectLink: (reference) => `${this.apiOrigin}/_pay/${encodeURIComponent(reference)}`,
		};
		this.service = new MoneyService(
			config,
			this.clients,
			this.store,
			this.idempotency,
			this.directory,
			this.clock,
			this.counters,
			envelopeContext,
		);
		this.service.finalizeAfterMs = options.finalizeAfterMs;
		this.service.onStatusChange((tx) => this.deliverEvent(tx));
		this.stateWriter = options.statePath ? new StateWriter(options.statePath, () => this.snapshot()) : null;
		if (persisted) this.restore(persisted);
	}

	/** The order of ties for the next list request (SandboxConfig.listTieOrder); undefined: by creation. */
	nextTieOrder(): TieOrder | undefined {
		const request = this.listRequests++;
		if (this.config.listTieOrder === 'alternating') return request % 2 === 1 ? { reverse: true } : undefined;
		if (this.config.listTieOrder === 'shuffled') return { shuffleSeed: this.config.seed * 1_000_003 + request };
		return undefined;
	}

	private mergePersistedClients(persisted: PersistedState): void {
		for (const saved of persisted.clients) {
			const index = this.config.clients.findIndex((client) => client.clientId === saved.settings.clientId);
			if (index >= 0) this.config.clients[index] = saved.settings;
		}
	}

	private restore(persisted: PersistedState): void {
		for (const saved of persisted.clients) {
			const client = this.clients.get(saved.settings.clientId);
			if (client) client.tokenGeneration = saved.tokenGeneration;
		}
		const groups = new Map<string, Transaction[]>();
		for (const tx of persisted.transactions) {
			const key = `${tx.clientId}\u0000${tx.resource}`;
			const group = groups.get(key) ?? [];
			group.push(tx);
			groups.set(key, group);
		}
		for (const group of groups.values()) this.store.addMany(group[0].clientId, group[0].resource as Resource, group);
		this.idempotency.restore(persisted.idempotency);
		this.tokens.restore(persisted.tokens);
		this.clock.setOffsetSeconds(persisted.clockOffsetSeconds);
	}

	snapshot(): PersistedState {
		return {
			version: 1,
			savedAt: new Date().toISOString(),
			clients: this.clients.all().map((client) => ({ settings: client.settings, tokenGeneration: client.tokenGeneration })),
			transactions: this.store.everything(),
			idempotency: this.idempotency.snapshot(),
			tokens: this.tokens.snapshot(this.clock.now()),
			clockOffsetSeconds: this.clock.offsetSeconds(),
		};
	}

	changed(): void {
		this.stateWriter?.markDirty();
	}

	private deliverEvent(tx: Transaction): void {
		this.changed();
		const client = this.clients.get(tx.clientId);
		const url = client?.settings.webhookUrl;
		if (!client || !url) return;
		this.webhooks.enqueue(
			{ url, scheme: client.settings.webhookScheme, secret: client.settings.webhookSecret },
			`${tx.resource}.${tx.status.toLowerCase()}`,
			this.service.envelope(tx),
		);
	}

	close(): void {
		this.service.close();
		this.webhooks.close();
		this.stateWriter?.writeNow();
	}
}
