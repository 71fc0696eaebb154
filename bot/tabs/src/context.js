// Where the tab runs: inside Teams, its context from the Teams JavaScript library and a session
// from Teams SSO; outside, the team and channel from the URL and the session cookie.
import { app, authentication } from "@microsoft/teams-js";
import { call, useBearer } from "./api.js";
import { applyTheme, systemTheme } from "./theme.js";

const TEAMS_START_MS = 5000; // a frame that is not Teams never answers the handshake

export const framed = () => window.parent !== window;

export async function tabContext() {
  const params = new URLSearchParams(location.search);
  const context = {
    inTeams: false,
    teamId: params.get("teamId"),
    channelId: params.get("channelId"),
    entityId: params.get("entityId") || "me",
    locale: navigator.language,
    theme: params.get("theme") || systemTheme(),
  };
  if (framed() && (await startTeams())) {
    const teams = await app.getContext();
    context.inTeams = true;
    context.teamId = teams.team?.internalId ?? context.teamId;
    context.channelId = teams.channel?.id ?? context.channelId;
    context.entityId = teams.page?.id || context.entityId;
    context.locale = teams.app?.locale ?? context.locale;
    context.theme = teams.app?.theme ?? context.theme;
    app.registerOnThemeChangeHandler(applyTheme);
  }
  applyTheme(context.theme);
  document.documentElement.lang = context.locale || "en";
  return context;
}

export async function startTeams() {
  const timeout = new Promise((resolve) => setTimeout(() => resolve(false), TEAMS_START_MS));
  return Promise.race([app.initialize().then(() => true, () => false), timeout]);
}

// Teams SSO: the token from Teams to the API; the session it answers goes as Bearer, since Teams
// on the web blocks third-party cookies. Without Teams the cookie is the session.
export async function signIn(context) {
  if (context.inTeams) {
    try {
      const token = await authentication.getAuthToken();
      const answer = await call("/api/auth/teams-sso", { method: "POST", body: { token } });
      if (answer?.sessionToken) useBearer(answer.sessionToken);
    } catch {
      // Falls back to a cookie the browser may still hold; /api/me says whether there is one.
    }
  }
  return call("/api/me");
}
