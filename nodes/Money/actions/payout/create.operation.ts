import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	accountTypeField,
	additionalFields,
	amountField,
	amountNotice,
	businessReferenceField,
	businessReferenceNotice,
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
import { businessReferenceOf, guardToolMode, walletPinOf } from '../../helpers/create/guards';
import { readCreateBody } from '../../helpers/create/input';
import { refuseUnsafeReferences } from '../../helpers/create/referenceCheck';
import { type CreateRequest, sendCreate, withFinalStatus } from '../../helpers/create/send';
import type { OperationContext } from '../node.type';

const BENEFICIARY: Party = { label: 'Beneficiary', verb: 'paid' };

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['payout'], operation: ['create'] } }, [
	amountNotice,
	amountField,
	currencyField,
	identifierTypeField(BENEFICIARY),
	identifierField(BENEFICIARY),
	channelField('In-app wallet transfer'),
	accountTypeField(BENEFICIARY),
	businessReferenceNotice,
	businessReferenceField,
	requireBusinessReferenceField('payout'),
	requireBusinessReferenceOffNotice,
	additionalFields('debit'),
	...toolModeFields('payout', 'pay out'),
	createOptions('payout'),
]);

/** Validates, checks the guards, derives the idempotency key, sends once (paced), optionally waits for the final status. */
export async function execute(this: IExecuteFunctions, itemIndex: number, context: OperationContext): Promise<INodeExecutionData[]> {
	await refuseUnsafeReferences.call(this, 'payout', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body = await readCreateBody.call(this, 'payout', itemIndex);
	if (context.isToolMode) guardToolMode.call(this, 'payout', body.amount as number, itemIndex);
	const pin = await walletPinOf.call(this, options, itemIndex, context);
	const businessReference = businessReferenceOf.call(this, 'payout', itemIndex);
	const request: CreateRequest = { resource: 'payout', body, pin, businessReference, itemIndex, options, settings: context.callSettings(itemIndex) };
	const created = await sendCreate.call(this, request, context);
	return [{ json: await withFinalStatus.call(this, request, created), pairedItem: { item: itemIndex } }];
}
