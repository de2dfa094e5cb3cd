import type { INodeProperties } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { operationField } from '../../descriptions/options';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as reconcile from './reconcile.operation';

/** Charges and payouts have the same operations: each operation module serves both, reading the resource. */
export { create, get, getAll, reconcile };

const CREATE: Record<TransactionResource, string> = {
	charge: 'Collect money from a payer into the merchant wallet',
	payout: 'Send money from the merchant wallet to a beneficiary',
};
const RECONCILE: Record<TransactionResource, string> = {
	charge: 'Match your records against every charge of a period: matched, mismatched, missing, unexpected',
	payout: 'Match your payout lines against every payout of a period: matched, mismatched, missing, unexpected',
};

/** The Operation parameter and every operation's parameters of Charge or Payout. */
export function description(resource: TransactionResource): INodeProperties[] {
	return [
		operationField(resource, 'create', [
			{ name: 'Create', value: 'create', description: CREATE[resource], action: `Create a ${resource}` },
			{ name: 'Get', value: 'get', description: `Get a ${resource} by its reference`, action: `Get a ${resource}` },
			{ name: 'Get Many', value: 'getAll', description: `List ${resource}s, newest first`, action: `Get many ${resource}s` },
			{ name: 'Reconcile', value: 'reconcile', description: RECONCILE[resource], action: `Reconcile ${resource}s` },
		]),
		...create.description(resource),
		...get.description(resource),
		...getAll.description(resource),
		...reconcile.description(resource),
	];
}
