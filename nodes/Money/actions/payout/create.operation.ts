import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	accountTypeField,
	additionalFields,
	amountField,
	businessReferenceField,
	channelField,
	createOptions,
	currencyField,
	identifierField,
	identifierTypeField,
	type Party,
	requireBusinessReferenceField,
	requireBusinessReferenceOffNotice,
	toolModeFields,
} from '../../descriptions/createFields';
import { previewField } from '../../descriptions/preview';
import { type ItemRun, startCreateRun } from '../../helpers/create/run';

const BENEFICIARY: Party = { resource: 'payout', label: 'Beneficiary', verb: 'paid' };

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['payout'], operation: ['create'] } }, [
	amountField,
	currencyField,
	identifierTypeField(BENEFICIARY),
	identifierField(BENEFICIARY),
	channelField('In-app wallet transfer'),
	accountTypeField(BENEFICIARY),
	businessReferenceField('payout'),
	requireBusinessReferenceField('payout'),
	requireBusinessReferenceOffNotice('payout'),
	additionalFields('debit'),
	...toolModeFields('payout', 'pay out'),
	previewField('payout'),
	createOptions('payout'),
]);

/** Reads every row, decides what must not be sent, then sends row by row (paced) and optionally waits for the final status. */
export async function start(this: IExecuteFunctions): Promise<ItemRun> {
	return await startCreateRun(this, 'payout');
}
