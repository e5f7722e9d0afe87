// Connector ids are UUID v4; anything else in the id position is simply not found.
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isConnectorId = (value: string): boolean => UUID_V4.test(value);
