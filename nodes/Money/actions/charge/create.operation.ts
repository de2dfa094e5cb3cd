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

const PAYER: Party = { resource: 'charge', label: 'Payer', verb: 'charged' };

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['charge'], operation: ['create'] } }, [
	amountField,
	currencyField,
	identifierTypeField(PAYER),
	identifierField(PAYER),
	channelField('The payer approves in the app; the output carries the redirect_link to hand to the payer'),
	accountTypeField(PAYER),
	businessReferenceField('charge'),
	requireBusinessReferenceField('charge'),
	requireBusinessReferenceOffNotice('charge'),
	additionalFields('credit'),
	...toolModeFields('charge', 'charge'),
	previewField('charge'),
	createOptions('charge'),
]);

/** Reads every row, decides what must not be sent, then sends row by row (paced) and optionally waits for the final status. */
export async function start(this: IExecuteFunctions): Promise<ItemRun> {
	return await startCreateRun(this, 'charge');
}
