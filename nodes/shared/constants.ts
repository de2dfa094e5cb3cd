export const MONEY_CREDENTIAL_TYPE = 'moneyApi';

export const API_BASE_PATH = '/money/v1';

export const CHANNELS = ['platform', 'psp-a-tg', 'psp-b-tg'] as const;
export type Channel = (typeof CHANNELS)[number];

export const CURRENCIES = ['XOF', 'XAF'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const IDENTIFIER_TYPES = ['gm_account', 'phone'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];

export const ACCOUNT_TYPES = ['Client', 'Driver', 'Merchant'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export type TransactionResource = 'charge' | 'payout';

export const CHARGE_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const PAYOUT_STATUSES = [...CHARGE_STATUSES, 'REVERSED'] as const;
export const PENDING_STATUS = 'PENDING';

export const MESSAGE_MAX_CHARACTERS = 255;
export const DOCUMENT_MAX_BYTES = 2 * 1024 * 1024;
export const LIST_PAGE_SIZE_MAX = 100;
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

export const ROUTES = {
	charge: `${API_BASE_PATH}/charge`,
	payout: `${API_BASE_PATH}/payout`,
	transactionDetails: `${API_BASE_PATH}/transaction-details`,
	account: `${API_BASE_PATH}/account`,
} as const;

export const PARTY_FIELD: Record<TransactionResource, string> = {
	charge: 'payer_identifier',
	payout: 'beneficiary_identifier',
};

export const ACCOUNT_TYPE_FIELD: Record<TransactionResource, string> = {
	charge: 'payer_account_type',
	payout: 'beneficiary_account_type',
};

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Answer header of a create served from the API's idempotency record. */
export const REPLAY_HEADER = 'idempotent-replayed';
