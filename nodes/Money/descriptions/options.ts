import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY } from '../../transport/failures';

/** Options and parameters every operation of the Money node may carry: retries, Simplify, Concurrency. */

export const retryOptions: INodeProperties[] = [
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 10, numberPrecision: 0 },
		default: 3,
		description: `How many times a call is retried after a 429, 502, 503, 504 or a lost connection, with exponential backoff and jitter. A Retry-After is honoured up to ${DEFAULT_RETRY_POLICY.maxRetryAfterMs / 1000} s; a longer one fails the call at once. Other errors are never retried. A retried create reuses its idempotency key, so money moves once.`,
	},
	{
		displayName: 'Request Timeout (Ms)',
		name: 'requestTimeoutMs',
		type: 'number',
		typeOptions: { minValue: 1000, numberPrecision: 0 },
		default: 60000,
		description: 'How long to wait for each answer before treating the call as lost (and retrying it)',
	},
	{
		displayName: 'Retry Base Delay (Ms)',
		name: 'retryBaseDelayMs',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 500,
		description: 'First backoff delay; each retry waits up to twice as long as the one before',
	},
];

/** n8n's usual Simplify switch of Get and Get Many, on by default. */
export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/** Reconcile's Simplify option: what its outputs carry of each API transaction. */
export const simplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description:
		'Whether to return a flattened version of the response (amount, status label, counterpart) instead of the raw data',
};

/**
 * How many items a Get reads at the same time unless Concurrency says otherwise. Reads move no
 * money, and n8n's HTTP Request node sends every item at once: a few in flight keep the node's cost
 * per call at or under that node's (bench/README.md) without pressing on the API's rate limit, whose
 * 429s are retried with backoff.
 */
export const DEFAULT_READ_CONCURRENCY = 8;

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 32, numberPrecision: 0 },
	default: DEFAULT_READ_CONCURRENCY,
	description:
		'How many items are read at the same time. 1 reads them one after the other. The output keeps the input order.',
};

export const readOptions = (withConcurrency: boolean): INodeProperties[] => [...(withConcurrency ? [concurrencyOption] : []), ...retryOptions];

export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add option', default: {}, options };
}

/** Options of a collection listed alphabetically, as n8n's own nodes list them. */
export function byDisplayName(options: INodeProperties[]): INodeProperties[] {
	return [...options].sort((a, b) => a.displayName.localeCompare(b.displayName, 'en'));
}

/** The Operation parameter of a resource. */
export function operationField(resource: string, defaultOperation: string, options: INodePropertyOptions[]): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}
