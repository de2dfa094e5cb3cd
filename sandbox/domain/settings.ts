/** The sandbox's configuration: its clients (settings, the control API's view and patch of them), directory and delivery settings. */
import type { AccountType, Currency, IdentifierType, WebhookScheme } from './types';

export interface ClientLimits {
	minAmount: number;
	maxAmount: number;
	dailyCap: number;
	monthlyCap: number;
	velocityLimit: number;
	velocityWindowSeconds: number;
}

export interface RateLimit {
	requests: number;
	windowSeconds: number;
}

export interface WalletSettings {
	number: string;
	currency: Currency;
	balance: number;
}

export interface MerchantProfile {
	uniqueId: string;
	name: string;
	type: string;
	status: string;
	countryCode: string | null;
	phoneNumber: string | null;
	createdAt: string | null;
	updatedAt: string | null;
}

/** How a client is set up and what it may do: the part of its settings the control API shows (ClientView) and patches (ClientPatch). */
export interface ClientAccess {
	entitlements: string[];
	ipAllowlist: string[] | null;
	limits: ClientLimits;
	rateLimit: RateLimit | null;
	linked: boolean;
	hasPrimaryWallet: boolean;
	profileIncomplete: boolean;
	merchantResolvable: boolean;
	walletRetrievable: boolean;
	webhookUrl: string | null;
	webhookScheme: WebhookScheme;
}

export interface ClientSettings extends ClientAccess {
	clientId: string;
	clientSecret: string;
	apiKey: string;
	hmacSecret: string;
	webhookSecret: string;
	pin: string;
	rsaPublicKeyPem?: string;
	rsaPrivateKeyPem?: string;
	merchant: MerchantProfile;
	wallets: WalletSettings[];
}

export type ClientSettingsInput = Partial<Omit<ClientSettings, 'limits' | 'merchant'>> & {
	limits?: Partial<ClientLimits>;
	merchant?: Partial<MerchantProfile>;
};

export interface DirectoryEntry {
	identifier: string;
	type: IdentifierType;
	accountType: AccountType;
	name: string;
	eligible: boolean;
}

export interface WebhookDeliverySettings {
	maxAttempts: number;
	baseDelayMs: number;
	timeoutMs: number;
	queueCapacity: number;
	concurrency: number;
}

/** `raw`: a repeated key's body must be the same bytes (a strict API); `semantic`: the same fields, in any order, the PIN compared by its plain value. */
export type IdempotencyFingerprint = 'raw' | 'semantic';

export type ListTieOrder = 'stable' | 'alternating' | 'shuffled';

export interface SandboxConfig {
	clients: ClientSettingsInput[];
	directory: DirectoryEntry[];
	idempotencyCapacity: number;
	idempotencyFingerprint: IdempotencyFingerprint;
	tokenCapacity: number;
	tokenSnapshotsEntitlements: boolean;
	payoutTypeLabel: 'payout' | 'transfer';
	/** Whether charge and payout envelopes carry `updated_at`: the spec's list of known envelope fields (2.4) does not name it. */
	envelopeUpdatedAt: boolean;
	/** Whether list rows carry `metadata` (a Get always does): the spec's list of known envelope fields (2.4) does not name it. */
	listRowMetadata: boolean;
	/**
	 * null: timestamps in UTC with `Z`. A number: envelope timestamps written without a zone designator, as
	 * ISO 8601 allows, in the wall time of that many minutes east of UTC (60: Douala), and list bounds
	 * without one read in that wall time.
	 */
	naiveTimestampsOffsetMinutes: number | null;
	/**
	 * Whether created_at is written to the second (its fraction dropped), while the store keeps the
	 * millisecond and compares list bounds with it: whether end_date includes the transactions written
	 * with its instant then depends on each one's hidden fraction (docs/decisions.md#d11).
	 */
	createdAtWrittenToSecond: boolean;
	/** Whether a list's start_date and end_date exclude a transaction created exactly at them (the spec says "bound", not whether inclusive). */
	listBoundsExclusive: boolean;
	/**
	 * How transactions created at the same instant are ordered in a list: `stable` (by creation),
	 * `alternating`, reversed on every other list request, or `shuffled`, in another order on every
	 * list request, as a database may order ties differently from one query to the next (the spec
	 * says only "newest first"). Switchable at run time (`setListTieOrder`).
	 */
	listTieOrder: ListTieOrder;
	paymentLinkBase: string | null;
	webhooks: Partial<WebhookDeliverySettings>;
	seed: number;
	maxBodyBytes: number;
}

export interface ResolvedConfig extends Omit<SandboxConfig, 'clients' | 'webhooks'> {
	clients: ClientSettings[];
	webhooks: WebhookDeliverySettings;
}

export interface WalletView {
	number: string;
	currency: Currency;
	balance: number;
	primary: boolean;
}

export type ClientPatch = Partial<Omit<ClientAccess, 'limits'>> & { limits?: Partial<ClientLimits>; balance?: number };

export interface ClientView extends ClientAccess {
	clientId: string;
	wallets: WalletView[];
}
