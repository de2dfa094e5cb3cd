import type { PublicDirectoryEntry } from '../domain/directory';
import type { ClientPatch, ClientView, IdempotencyFingerprint, ListTieOrder, WalletView } from '../domain/settings';
import type { Counters, LedgerTransaction, Money, SeedRequest, Status, TransactionEnvelope, WebhookScheme } from '../domain/types';
import type { FaultSpec } from '../faults/injector';

export type FinalStatus = Exclude<Status, 'PENDING'>;

export interface SandboxInfo {
	baseUrl: string;
	authUrl: string;
	controlUrl: string;
	clientId: string;
	clientSecret: string;
	apiKey: string;
	hmacSecret: string;
	webhookSecret: string;
	rsaPublicKeyPem: string;
	pin: string;
	merchantAccountNumber: string;
	payers: PublicDirectoryEntry[];
	beneficiaries: PublicDirectoryEntry[];
	/** The sandbox's other API clients (each of its own merchant), described as the primary one above. */
	otherClients: SandboxClientInfo[];
}

export type SandboxClientInfo = Pick<SandboxInfo, 'clientId' | 'clientSecret' | 'apiKey' | 'hmacSecret' | 'webhookSecret' | 'rsaPublicKeyPem' | 'pin' | 'merchantAccountNumber'>;

export interface HealthReport {
	ok: true;
	transactions: number;
	idempotencyRecords: number;
	webhookBacklog: number;
	clockOffsetSeconds: number;
	idempotencyFingerprint: IdempotencyFingerprint;
}

/** The operations of the control API; the in-process handle and SandboxControlClient both implement it. */
export interface SandboxControl {
	setStatus(reference: string, status: FinalStatus): Promise<TransactionEnvelope>;
	addFault(fault: FaultSpec): Promise<{ id: string }>;
	removeFault(id: string): Promise<void>;
	listFaults(): Promise<Array<FaultSpec & { id: string; remaining: number | null }>>;
	clearFaults(): Promise<void>;
	revokeTokens(clientId?: string): Promise<void>;
	setRevokeEvery(every: number | null): Promise<void>;
	getClient(clientId: string): Promise<ClientView>;
	updateClient(clientId: string, patch: ClientPatch): Promise<ClientView>;
	counters(): Promise<Counters>;
	resetCounters(): Promise<void>;
	ledger(clientId?: string): Promise<Ledger>;
	setWebhook(url: string | null, scheme?: WebhookScheme, clientId?: string): Promise<void>;
	flushWebhooks(): Promise<void>;
	/** Signs one event body as a delivery would and POSTs it `copies` times at the same moment to the client's webhook URL. */
	deliverEvent(event: object, copies?: number, clientId?: string): Promise<{ statuses: Array<number | null> }>;
	setClockOffset(offsetSeconds: number): Promise<void>;
	setFinalizeAfter(ms: number | null): Promise<void>;
	/** How a repeated idempotency key's body is compared: `raw` bytes (the default, a strict API) or `semantic` fields. */
	setIdempotencyFingerprint(mode: IdempotencyFingerprint): Promise<void>;
	/** How lists order transactions created at the same instant (SandboxConfig.listTieOrder). */
	setListTieOrder(order: ListTieOrder): Promise<void>;
	seed(request: SeedRequest): Promise<{ count: number }>;
	health(): Promise<HealthReport>;
	info(): Promise<SandboxInfo>;
}

export const STATUS_ACTIONS: Record<string, FinalStatus> = {
	complete: 'COMPLETED',
	fail: 'FAILED',
	cancel: 'CANCELLED',
	reverse: 'REVERSED',
};

export interface Ledger {
	clientId: string;
	charges: LedgerTransaction[];
	payouts: LedgerTransaction[];
	balance: Money;
	wallets: WalletView[];
}
