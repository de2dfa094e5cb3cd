/** The Money API's vocabulary (docs/decisions.md): its values, routes and header names, each written once for the whole pack. */

export const TRANSACTION_RESOURCES = ['charge', 'payout'] as const;
export type TransactionResource = (typeof TRANSACTION_RESOURCES)[number];

export const CHANNELS = ['platform', 'psp-a-tg', 'psp-b-tg'] as const;
export type Channel = (typeof CHANNELS)[number];

export const CURRENCIES = ['XOF', 'XAF'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const IDENTIFIER_TYPES = ['gm_account', 'phone'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];

export const ACCOUNT_TYPES = ['Client', 'Driver', 'Merchant'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const PENDING_STATUS = 'PENDING';
export const REVERSED_STATUS = 'REVERSED';
export const CHARGE_STATUSES = [PENDING_STATUS, 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const PAYOUT_STATUSES = [...CHARGE_STATUSES, REVERSED_STATUS] as const;
export type TransactionStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * Whether a status label is final: COMPLETED, FAILED, CANCELLED (no later status but a payout's
 * REVERSED) and REVERSED. PENDING is not, nor is a label the specification does not list: nothing
 * says that no other status follows it (docs/decisions.md#d2).
 */
export function isFinalStatus(label: string | null | undefined): boolean {
	return label === 'COMPLETED' || label === 'FAILED' || label === 'CANCELLED' || label === REVERSED_STATUS;
}

export function statusesOf(resource: TransactionResource): readonly TransactionStatus[] {
	return resource === 'payout' ? PAYOUT_STATUSES : CHARGE_STATUSES;
}

/** Body field names that differ between a charge and a payout. */
export const PARTY_FIELD: Record<TransactionResource, string> = {
	charge: 'payer_identifier',
	payout: 'beneficiary_identifier',
};
export const ACCOUNT_TYPE_FIELD: Record<TransactionResource, string> = {
	charge: 'payer_account_type',
	payout: 'beneficiary_account_type',
};

/**
 * The body fields that decide how much money goes where: what a run's memory compares before a
 * Retry sends a row again, and what an approved plan covers (docs/idempotency.md). Free text
 * (Message, Metadata, the payment reference) is not among them: a Retry evaluates it again.
 */
export function movementFields(resource: TransactionResource): string[] {
	return ['amount', 'currency', PARTY_FIELD[resource], 'channel', ACCOUNT_TYPE_FIELD[resource], 'account_number'];
}

export const MONEY_API_CREDENTIAL_TYPE = 'moneyApi';
/** The credential's secrets a call to the Money API sends (its authenticate): no error a user sees carries them back. */
export const SENT_SECRET_FIELDS = ['accessToken', 'apiKey'] as const;

export const API_BASE_PATH = '/money/v1';
export const ROUTES = {
	charge: `${API_BASE_PATH}/charge`,
	payout: `${API_BASE_PATH}/payout`,
	transactionDetails: `${API_BASE_PATH}/transaction-details`,
	account: `${API_BASE_PATH}/account`,
} as const;

/** The read route of one charge, payout or transaction by its reference or id. */
export function itemRoute(collection: keyof typeof ROUTES, reference: string): string {
	return `${ROUTES[collection]}/${encodeURIComponent(reference)}`;
}

export function listRoute(resource: TransactionResource): string {
	return ROUTES[resource];
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Answer header of a create served from the API's idempotency record (the sandbox's and the common convention; the specification names none). */
export const REPLAY_HEADER = 'idempotent-replayed';

/** Requests whose timestamp is further from the server's clock are refused (spec 5.3, 8). */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** The metadata key under which creates store the Business Reference, so Reconcile can match a record that knows only its own order or payout ID. */
export const BUSINESS_REFERENCE_METADATA_FIELD = 'n8n_business_reference';

/** The metadata keys the pack writes on an agent's creates start with it (docs/agents.md); a person's Metadata may not. */
export const AGENT_METADATA_PREFIX = 'n8n_agent_';

export const MESSAGE_MAX_CHARACTERS = 255;
export const DOCUMENT_MAX_BYTES = 2 * 1024 * 1024;
export const LIST_PAGE_SIZE_MAX = 100;
