// Parse cards as a host does, with Microsoft's Adaptive Cards library (npm `adaptivecards`), and
// print what it says about each: {name: [message, ...]} for the {name: card} JSON read on stdin.
//
//   node parse_cards.js NODE_MODULES HOST_CONFIG.json < cards.json
//
// Per card: the parse's events (unknown element or action types, bad values, properties newer
// than Adaptive Cards 1.5), the validation a host runs before rendering (duplicate ids, empty
// choice sets, more buttons than the host config allows, ...), and every property the library
// does not know, which it ignores silently. The library's browser bundle parses in plain Node:
// only rendering needs a DOM.
"use strict";

const fs = require("fs");
const path = require("path");

const [nodeModules, hostConfigPath] = process.argv.slice(2);
const AC = require(path.resolve(nodeModules, "adaptivecards", "dist", "adaptivecards.js"));
const hostConfig = new AC.HostConfig(JSON.parse(fs.readFileSync(hostConfigPath, "utf8")));
// Teams' own keys, which the library has no notion of, documented by Teams ("Format cards in
// Microsoft Teams"): the card's `msteams` ({"width": "Full"}, mentions) and any element's
// `targetWidth` (the card widths it shows at); removed, wherever they sit, before parsing.
const TEAMS_KEYS = ["msteams", "targetWidth"];

function withoutTeamsKeys(node) {
    if (Array.isArray(node)) return node.map(withoutTeamsKeys);
    if (node === null || typeof node !== "object") return node;
    return Object.fromEntries(
        Object.entries(node)
            .filter(([key]) => !TEAMS_KEYS.includes(key))
            .map(([key, value]) => [key, withoutTeamsKeys(value)])
    );
}

// Keys a class reads itself rather than through its declared schema (the library's collections,
// parsed in its `internalParse`), so they are known though its schema does not list them.
function parsedByHand(object) {
    const keys = ["fallback"];
    for (const collection of ["getItemsCollectionPropertyName", "getCollectionPropertyName"]) {
        if (typeof object[collection] === "function") {
            keys.push(object[collection]()); // body, items; a table's rows, a row's cells
        }
    }
    if (object instanceof AC.RichTextBlock) keys.push("inlines");
    if (object instanceof AC.ColumnSet) keys.push("columns");
    if (object instanceof AC.ActionSet || object instanceof AC.ContainerWithActions) {
        keys.push("actions");
    }
    if (object instanceof AC.ShowCardAction) keys.push("card");
    return keys;
}

// Every object the parse reads, with the JSON it read it from.
const parsed = [];
const internalParse = AC.SerializableObject.prototype.internalParse;
AC.SerializableObject.prototype.internalParse = function (source, context) {
    internalParse.call(this, source, context);
    if (source && typeof source === "object" && !Array.isArray(source)) {
        parsed.push([this, source]);
    }
};

function unknownProperties() {
    const messages = [];
    for (const [object, source] of parsed) {
        const schema = object.getSchema();
        const known = new Set(parsedByHand(object));
        for (let i = 0; i < schema.getCount(); i++) known.add(schema.getItemAt(i).name);
        const type = source.type || object.constructor.name;
        for (const key of Object.keys(source)) {
            if (!known.has(key)) messages.push(`${type}: unknown property "${key}" (ignored)`);
        }
    }
    return messages;
}

function problems(json) {
    const card = new AC.AdaptiveCard();
    card.hostConfig = hostConfig;
    const official = withoutTeamsKeys(json);
    const context = new AC.SerializationContext(AC.Versions.v1_5);
    parsed.length = 0;
    card.parse(official, context);
    const messages = [];
    for (let i = 0; i < context.eventCount; i++) {
        const event = context.getEventAt(i);
        messages.push(`parse, ${AC.ValidationEvent[event.event]}: ${event.message}`);
    }
    messages.push(...unknownProperties());
    for (const event of card.validateProperties().validationEvents) {
        messages.push(`validation, ${AC.ValidationEvent[event.event]}: ${event.message}`);
    }
    return messages;
}

const cards = JSON.parse(fs.readFileSync(0, "utf8"));
const found = {};
for (const [name, card] of Object.entries(cards)) found[name] = problems(card);
process.stdout.write(JSON.stringify(found));
