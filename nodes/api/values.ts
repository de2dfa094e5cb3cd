import type { INodePropertyOptions } from 'n8n-workflow';

/** The lists of values the Money API documents (docs/decisions.md), each written once for the whole pack. */

export const TRANSACTION_RESOURCES = ['charge', 'payout'] as const;
export type TransactionResource = (typeof TRANSACTION_RESOURCES)[number];

export const CHANNELS = ['platform', 'psp-a-tg', 'psp-b-tg'] as const;
export type Channel = (typeof CHANNELS)[number];
const CHANNEL_NAMES: Record<Channel, string> = {
	platform: 'Platform',
	'psp-a-tg': 'PSP A (Togo)',
	'psp-b-tg': 'PSP B (Togo)',
};

export const CURRENCIES = ['XOF', 'XAF'] as const;
export type Currency = (typeof CURRENCIES)[number];
const CURRENCY_NAMES: Record<Currency, string> = {
	XAF: 'XAF (Central African CFA Franc)',
	XOF: 'XOF (West African CFA Franc)',
};

export const IDENTIFIER_TYPES = ['gm_account', 'phone'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];
const IDENTIFIER_TYPE_NAMES: Record<IdentifierType, string> = { gm_account: 'GM Account', phone: 'Phone' };

export const ACCOUNT_TYPES = ['Client', 'Driver', 'Merchant'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const PENDING_STATUS = 'PENDING';
export const REVERSED_STATUS = 'REVERSED';
export const CHARGE_STATUSES = [PENDING_STATUS, 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const PAYOUT_STATUSES = [...CHARGE_STATUSES, REVERSED_STATUS] as const;
export type TransactionStatus = (typeof PAYOUT_STATUSES)[number];
const STATUS_NAMES: Record<TransactionStatus, string> = {
	CANCELLED: 'Cancelled',
	COMPLETED: 'Completed',
	FAILED: 'Failed',
	PENDING: 'Pending',
	REVERSED: 'Reversed',
};

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

export const MESSAGE_MAX_CHARACTERS = 255;
export const DOCUMENT_MAX_BYTES = 2 * 1024 * 1024;
export const LIST_PAGE_SIZE_MAX = 100;

export function byName(options: INodePropertyOptions[]): INodePropertyOptions[] {
	return options.sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

/** n8n option lists of the values above, sorted by name as n8n's own nodes list them. */
export const channelOptions = (descriptions: Partial<Record<Channel, string>> = {}): INodePropertyOptions[] =>
	byName(
		CHANNELS.map((value) => ({
			name: CHANNEL_NAMES[value],
			value,
			...(descriptions[value] ? { description: descriptions[value] } : {}),
		})),
	);
export const currencyOptions = (): INodePropertyOptions[] =>
	byName(CURRENCIES.map((value) => ({ name: CURRENCY_NAMES[value], value })));
export const identifierTypeOptions = (): INodePropertyOptions[] =>
	byName(IDENTIFIER_TYPES.map((value) => ({ name: IDENTIFIER_TYPE_NAMES[value], value })));
export const accountTypeOptions = (): INodePropertyOptions[] =>
	byName(ACCOUNT_TYPES.map((value) => ({ name: value, value })));
/** The statuses of a resource; `both` lists every status, the payout-only one marked as such. */
export const statusOptions = (resource: TransactionResource | 'both'): INodePropertyOptions[] =>
	byName(
		statusesOf(resource === 'both' ? 'payout' : resource).map((value) => ({
			name: resource === 'both' && value === REVERSED_STATUS ? `${STATUS_NAMES[value]} (Payouts)` : STATUS_NAMES[value],
			value,
		})),
	);
export const resourceOptions = (): INodePropertyOptions[] =>
	TRANSACTION_RESOURCES.map((value) => ({ name: value === 'charge' ? 'Charge' : 'Payout', value }));
