package api

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"github.com/vaticml/vatic/engine"
)

// messageJSON is one message of GET /messages (REFERENCE §8.10). The Elm
// decoder requires every field; Vatic has no users or organizations (one
// API key serves one account), so userId and organizationId are "" as the
// reference says for values that are unknown.
type messageJSON struct {
	MessageID      string `json:"messageId"`
	Content        string `json:"content"`
	Severity       string `json:"severity"`
	UserID         string `json:"userId"`
	OrganizationID string `json:"organizationId"`
	CreatedAt      string `json:"createdAt"`
	RelatedID      string `json:"relatedId"`
	RelatedTo      string `json:"relatedTo"`
}

// listMessages serves GET /messages (REFERENCE §8.10): the messages that
// sessions and imports show in their messages arrays, with ids and times,
// filtered by relatedId (a session's or an import's id) and levels
// (comma-separated or repeated severities; by default every level but
// debug, as §1.11 recommends), paged, newest first.
func (s *Server) listMessages(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := params(r.URL.Query())
	pg, size, err := q.paging()
	if err != nil {
		return err
	}
	items, total, err := s.engine.ListMessages(r.Context(), engine.MessageQuery{
		RelatedID: q.get("relatedId"), Levels: q.list("levels"), Page: pg, PageSize: size,
	})
	if err != nil {
		return err
	}
	out := make([]messageJSON, 0, len(items))
	for _, m := range items {
		out = append(out, messageJSON{
			MessageID: m.ID, Content: m.Text, Severity: m.Severity, CreatedAt: formatEventTime(m.Created),
			RelatedID: m.RelatedID, RelatedTo: m.RelatedTo,
		})
	}
	return writeList(w, r, pg, size, total, out)
}

// metricJSON is one metric definition of GET /metrics (REFERENCE §8.11).
type metricJSON struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// metricCatalog is every metric key Vatic reports (REFERENCE §11.1), with
// the meanings §11.1 gives, in the table's order: the holdout metrics of
// forecasts and regression, impact, classification, anomalies, then the
// contest selection's data statistics (with the daily and weekly
// seasonality keys MODELLING §1.3 adds to §11.1's yearly one). The
// descriptions are ours (REFERENCE §8.11).
var metricCatalog = []metricJSON{
	{"meanAbsoluteError", "Mean Absolute Error", "Average absolute difference between predicted and actual values, in target units."},
	{"meanAbsolutePercentError", "Mean Absolute Percent Error", "Average absolute difference between predicted and actual values relative to the actual value, as a fraction (0.03 is 3 %)."},
	{"meanAbsoluteScaledError", "Mean Absolute Scaled Error", "Mean absolute error divided by that of the naive one-step forecast on the training series; below 1 beats the naive forecast."},
	{"rootMeanSquareError", "Root Mean Square Error", "Square root of the average squared difference between predicted and actual values, in target units."},
	{"rSquared", "R Squared", "Share of the target's variance the predictions explain; 1 is perfect and it can be negative."},
	{"pValue", "P Value", "Probability of seeing an effect at least this large if the event had no impact; small values are strong evidence of an impact."},
	{"absoluteEffect", "Absolute Effect", "Total difference between the observed values and the counterfactual forecast over the event window, in target units."},
	{"relativeEffect", "Relative Effect", "Absolute effect as a fraction of the counterfactual forecast's total over the event window (0.07 is +7 %)."},
	{"accuracy", "Accuracy", "Share of test rows whose class was predicted correctly."},
	{"macroAverageF1Score", "Macro Average F1 Score", "Mean of the per-class F1 scores (each the harmonic mean of that class's precision and recall)."},
	{"macroAveragePrecision", "Macro Average Precision", "Mean over classes of the share of rows predicted as the class that belong to it."},
	{"macroAverageRecall", "Macro Average Recall", "Mean over classes of the share of the class's rows predicted as it."},
	{"matthewsCorrelationCoefficient", "Matthews Correlation Coefficient", "Correlation between predicted and actual classes, from -1 (always wrong) through 0 (chance) to 1 (perfect)."},
	{"rocAreaUnderCurve", "ROC Area Under Curve", "Area under the receiver operating characteristic curve of a binary target's class scores; 0.5 is chance, 1 is perfect."},
	{"percentAnomalies", "Percent Anomalies", "Share of rows flagged as anomalous, driven by the containsAnomalies setting rather than model quality."},
	{"observationCount", "Observation Count", "Number of rows (or time buckets) of the data source the session used."},
	{"trainingCount", "Training Count", "Number of rows (or buckets) the contestants were trained on."},
	{"testCount", "Test Count", "Number of rows (or buckets) held out to measure the contestants."},
	{"featureCount", "Feature Count", "Number of feature columns the contestants used."},
	{"dailySeasonality", "Daily Seasonality", "Strength of an hourly series' daily seasonal pattern, from 0 (none) to 1."},
	{"weeklySeasonality", "Weekly Seasonality", "Strength of the series' weekly seasonal pattern, from 0 (none) to 1."},
	{"yearlySeasonality", "Yearly Seasonality", "Strength of the series' yearly seasonal pattern, from 0 (none) to 1."},
	{"coefficientOfVariation", "Coefficient Of Variation", "Standard deviation of the target divided by its mean."},
	{"mean", "Mean", "Mean of the target."},
	{"standardDeviation", "Standard Deviation", "Standard deviation of the target."},
}

// metricDefinitions serves GET /metrics (REFERENCE §8.11): the static list
// of every metric key the service can report.
func (s *Server) metricDefinitions(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) error {
	return writeJSON(w, http.StatusOK, struct {
		Metrics []metricJSON `json:"metrics"`
	}{metricCatalog})
}
