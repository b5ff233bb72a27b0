package api_test

type statsJSON struct {
	DataSetName string                    `json:"dataSetName"`
	Columns     map[string]map[string]any `json:"columns"`
}
