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

/** Reads and checks the item, refuses what must not be sent, sends once (paced), optionally waits for the final status. */
export async function execute(this: IExecuteFunctions, itemIndex: number, context: OperationContext): Promise<INodeExecutionData[]> {
	if (isPreview(this, itemIndex)) return await previewItem.call(this, 'payout', itemIndex, context);
	return await createItem.call(this, 'payout', itemIndex, context);
}
