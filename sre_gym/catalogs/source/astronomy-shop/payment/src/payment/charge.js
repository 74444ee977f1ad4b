// Card charging for the payment service. Nothing is actually charged: the card is checked,
// a transaction id is minted, and the outcome is recorded on the span and in a counter.
const { context, propagation, trace, metrics } = require('@opentelemetry/api');
const cardValidator = require('simple-card-validator');
const { v4: uuidv4 } = require('uuid');
const { OpenFeature } = require('@openfeature/server-sdk');
const { FlagdProvider } = require('@openfeature/flagd-provider');

const logger = require('./logger');

const tracer = trace.getTracer('payment');
const transactionsCounter = metrics.getMeter('payment').createCounter('app.payment.transactions');
const flagProvider = new FlagdProvider();

const ACCEPTED_CARDS = new Set(['visa', 'mastercard']);
const LOYALTY_LEVEL = ['platinum', 'gold', 'silver', 'bronze'];

const pick = values => values[Math.floor(Math.random() * values.length)];

// Months since year 0: lets a card's expiry be compared with today as one number.
const monthIndex = (year, month) => year * 12 + month;

async function paymentFailureRate () {
  await OpenFeature.setProviderAndWait(flagProvider);
  return OpenFeature.getClient().getNumberValue('paymentFailure', 0);
}

// Load-generator traffic carries synthetic_request=true in its baggage and is never charged.
function isSyntheticRequest () {
  const entry = propagation.getBaggage(context.active())?.getEntry('synthetic_request');
  return entry?.value === 'true';
}

function checkCard (creditCard, span) {
  const {
    creditCardNumber: number,
    creditCardExpirationYear: year,
    creditCardExpirationMonth: month
  } = creditCard;
  const lastFourDigits = number.slice(-4);

  const { card_type: cardType, valid } = cardValidator(number).getCardDetails();
  span.setAttributes({ 'app.payment.card_type': cardType, 'app.payment.card_valid': valid });

  if (!valid) {
    throw new Error('Credit card info is invalid.');
  }
  if (!ACCEPTED_CARDS.has(cardType)) {
    throw new Error(`Sorry, we cannot process ${cardType} credit cards. Only VISA or MasterCard is accepted.`);
  }
  const today = new Date();
  if (monthIndex(today.getFullYear(), today.getMonth() + 1) > monthIndex(year, month)) {
    throw new Error(`The credit card (ending ${lastFourDigits}) expired on ${month}/${year}.`);
  }
  return { cardType, lastFourDigits };
}

module.exports.charge = async request => {
  const span = tracer.startSpan('charge');
  try {
    const failureRate = await paymentFailureRate();
    if (failureRate > 0 && Math.random() < failureRate) {
      span.setAttributes({ 'app.loyalty.level': 'gold' });
      throw new Error('Payment request failed. Invalid token. app.loyalty.level=gold');
    }

    const { cardType, lastFourDigits } = checkCard(request.creditCard, span);
    const transactionId = uuidv4();
    const loyalty_level = pick(LOYALTY_LEVEL);
    span.setAttributes({
      'app.loyalty.level': loyalty_level,
      'app.payment.charged': !isSyntheticRequest()
    });

    const { units, nanos, currencyCode } = request.amount;
    logger.info(
      { transactionId, cardType, lastFourDigits, amount: { units, nanos, currencyCode }, loyalty_level },
      'Transaction complete.'
    );
    transactionsCounter.add(1, { 'app.payment.currency': currencyCode });

    return { transactionId };
  } finally {
    span.end();
  }
};
