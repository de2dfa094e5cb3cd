import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
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
import { createItem } from '../../helpers/create/createItem';
import { isPreview, previewItem } from '../../helpers/create/preview/previewItem';
import type { OperationContext } from '../node.type';

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

/** Reads and checks the item, refuses what must not be sent, sends once (paced), optionally waits for the final status. */
export async function execute(this: IExecuteFunctions, itemIndex: number, context: OperationContext): Promise<INodeExecutionData[]> {
	if (isPreview(this, itemIndex)) return await previewItem.call(this, 'charge', itemIndex, context);
	return await createItem.call(this, 'charge', itemIndex, context);
}
