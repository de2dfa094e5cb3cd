import type { INodePropertyOptions } from 'n8n-workflow';

import { ACCOUNT_TYPES, type Channel, CHANNELS, CURRENCIES, type Currency, IDENTIFIER_TYPES, type IdentifierType, REVERSED_STATUS, statusesOf, TRANSACTION_RESOURCES, type TransactionResource, type TransactionStatus } from './values';

/** The Money API's values as n8n option lists, sorted by name as n8n's own nodes list them. */

const CHANNEL_NAMES: Record<Channel, string> = {
	platform: 'Platform',
	'psp-a-tg': 'PSP A (Togo)',
	'psp-b-tg': 'PSP B (Togo)',
};

const CURRENCY_NAMES: Record<Currency, string> = {
	XAF: 'XAF (Central African CFA Franc)',
	XOF: 'XOF (West African CFA Franc)',
};

const IDENTIFIER_TYPE_NAMES: Record<IdentifierType, string> = { gm_account: 'GM Account', phone: 'Phone' };

const STATUS_NAMES: Record<TransactionStatus, string> = {
	CANCELLED: 'Cancelled',
	COMPLETED: 'Completed',
	FAILED: 'Failed',
	PENDING: 'Pending',
	REVERSED: 'Reversed',
};

export function byName(options: INodePropertyOptions[]): INodePropertyOptions[] {
	return options.sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

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
