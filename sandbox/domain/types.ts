/** The Money API's vocabulary (channels, currencies, statuses, route slugs) and its transactions, stored and as envelopes. */
export const CHANNELS = ['platform', 'psp-a-tg', 'psp-b-tg'] as const;
export type Channel = (typeof CHANNELS)[number];

export const CURRENCIES = ['XOF', 'XAF'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const ACCOUNT_TYPES = ['Client', 'Driver', 'Merchant'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export type IdentifierType = 'gm_account' | 'phone';
export type Resource = 'charge' | 'payout';

export const STATUS_CODES = { PENDING: 0, COMPLETED: 1, FAILED: 2, CANCELLED: 3, REVERSED: 4 } as const;
export type Status = keyof typeof STATUS_CODES;
export const CHARGE_STATUSES: readonly Status[] = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'];
export const PAYOUT_STATUSES: readonly Status[] = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'];

export type WebhookScheme = 'request-style' | 'body-hmac';

export const ROUTE_SLUGS = [
	'post_money_v1_charge',
	'get_money_v1_charge_reference',
	'get_money_v1_charge_list',
	'post_money_v1_payout',
	'get_money_v1_payout_reference',
	'get_money_v1_payout_list',
	'get_money_v1_transaction_details_id',
	'get_money_v1_account',
] as const;
export type RouteSlug = (typeof ROUTE_SLUGS)[number];
export const TOKEN_ROUTE_SLUG = 'post_oauth2_token';

export interface PaymentReferenceRecord {
	ref_number: string | null;
	document: { content_type: string; size: number } | null;
}

export interface Counterpart {
	identifier: string;
	type: IdentifierType;
	accountType: AccountType | null;
	name: string | null;
}

export interface Transaction {
	reference: string;
	uniqueId: string;
	clientId: string;
	resource: Resource;
	status: Status;
	amount: number;
	currency: Currency;
	channel: Channel;
	counterpart: Counterpart;
	walletNumber: string;
	message: string | null;
	paymentReference: PaymentReferenceRecord | null;
	metadata: Record<string, unknown> | null;
	idempotencyKey: string | null;
	createdAt: number;
	updatedAt: number;
	balanceAfter: number;
	seq: number;
}

export interface Money {
	value: number;
	currency: Currency;
}

export interface TransactionEnvelope {
	reference: string;
	unique_id: string;
	status: { code: number; label: Status };
	type: string;
	channel: Channel;
	amount: Money;
	balance_after: Money;
	counterpart_account: { identifier: string; type: IdentifierType; channel: Channel; name: string | null };
	account: { identifier: string; channel: Channel; name: string };
	category: { id: string; label: string };
	note: string | null;
	shared_note: string | null;
	description: string;
	payment_references: PaymentReferenceRecord[];
	metadata: Record<string, unknown> | null;
	redirect_link?: string;
	created_at: string;
	updated_at?: string;
}

export interface SeedRequest {
	resource: Resource;
	count: number;
	status?: Status;
	channel?: Channel;
	createdAtFrom?: string;
	createdAtTo?: string;
	clientId?: string;
	/** Every seeded transaction gets this amount (smallest unit) instead of the spread one. */
	amount?: number;
	/** Every seeded transaction gets this metadata instead of `{ seeded: true }`. */
	metadata?: Record<string, unknown>;
}

export interface Counters {
	tokenRequests: number;
	requests: Record<string, number>;
	createsByIdempotencyKey: Record<string, number>;
	idempotentReplays: number;
	accepted: number;
	rejected: number;
	rejected401: number;
	faultsInjected: number;
	webhooksQueued: number;
	webhooksDelivered: number;
	webhookAttempts: number;
	webhooksFailed: number;
	webhooksDropped: number;
}

export type LedgerTransaction = TransactionEnvelope & { client_id: string; idempotency_key: string | null };
