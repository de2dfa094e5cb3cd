import type { TransactionResource } from './values';

/** The Money API's routes and header names, each written once for the pack. */

export const MONEY_API_CREDENTIAL_TYPE = 'moneyApi';

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
/** Answer header of a create served from the API's idempotency record. */
export const REPLAY_HEADER = 'idempotent-replayed';
