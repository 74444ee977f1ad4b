// Card checks behind PaymentService.Charge. Nothing is actually charged: a card
// that passes validation gets a fresh transaction id.

const cardValidator = require('simple-card-validator');
const { v4: uuidv4 } = require('uuid');
const pino = require('pino');

const logger = pino({
  name: 'paymentservice-charge',
  messageKey: 'message',
  formatters: {
    level: (label) => ({ severity: label })
  }
});

// Every card problem is the caller's fault: gRPC INVALID_ARGUMENT-ish code 400.
class CreditCardError extends Error {
  constructor (message) {
    super(message);
    this.name = this.constructor.name;
    this.code = 400;
  }
}

class InvalidCreditCard extends CreditCardError {
  constructor () {
    super('Credit card info is invalid');
  }
}

class UnacceptedCreditCard extends CreditCardError {
  constructor (cardType) {
    super(`Sorry, we cannot process ${cardType} credit cards. Only VISA or MasterCard is accepted.`);
  }
}

class ExpiredCreditCard extends CreditCardError {
  constructor (number, month, year) {
    super(`Your credit card (ending ${lastFour(number)}) expired on ${month}/${year}`);
  }
}

const ACCEPTED_CARD_TYPES = new Set(['visa', 'mastercard']);

function lastFour (number) {
  return String(number).replace(/\D/g, '').slice(-4);
}

// Months since year 0, so that expiry dates compare as plain integers.
function monthIndex (year, month) {
  return year * 12 + month;
}

function formatAmount ({ currency_code: currency, units, nanos }) {
  const cents = String(Math.floor((nanos || 0) / 1e7)).padStart(2, '0');
  return `${currency} ${units}.${cents}`;
}

/**
 * Validates the card of a ChargeRequest and returns a ChargeResponse.
 * Throws a CreditCardError subclass when the card cannot be used.
 */
function charge (request) {
  const { amount, credit_card: card } = request;
  const number = card.credit_card_number;

  const details = cardValidator(number).getCardDetails();
  if (!details.valid) {
    throw new InvalidCreditCard();
  }
  const cardType = details.card_type;
  if (!ACCEPTED_CARD_TYPES.has(cardType)) {
    throw new UnacceptedCreditCard(cardType);
  }

  const today = new Date();
  const thisMonth = monthIndex(today.getFullYear(), today.getMonth() + 1);
  const year = card.credit_card_expiration_year;
  const month = card.credit_card_expiration_month;
  // a card stays valid through the last day of its expiration month
  if (monthIndex(year, month) < thisMonth) {
    throw new ExpiredCreditCard(number, month, year);
  }

  logger.info(`Transaction processed: ${cardType} ending ${lastFour(number)}, amount ${formatAmount(amount)}`);
  return { transaction_id: uuidv4() };
}

module.exports = charge;
module.exports.CreditCardError = CreditCardError;
