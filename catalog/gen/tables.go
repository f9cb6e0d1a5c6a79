package gen

// productType is one kind of product the generator knows: the template it
// becomes, the noun and model-code prefix used in product names, its
// category path (root first), what it is used for (for descriptions) and its
// type-specific attributes. Variant-capable attributes come first so that
// they survive when a template keeps only part of the list.
type productType struct {
	template string
	noun     string
	code     string
	path     []string
	uses     []string
	attrs    []attrSpec
}

var (
	genders      = []string{"Men", "Women", "Unisex"}
	energyLabels = []string{"A", "B", "C", "D", "E", "F"}
)

// productTypes is the fixed table of product types; template i uses
// productTypes[i % len(productTypes)].
var productTypes = []productType{
	{"Running Shoes", "Running Shoe", "RS", []string{"Footwear", "Sports Shoes", "Running Shoes"},
		[]string{"daily training runs", "long distances on road and trail", "tempo sessions and race day"},
		[]attrSpec{
			variant(nums("Size", "", "36", "37", "38", "39", "40", "41", "42", "43", "44", "45", "46", "47")),
			str("Upper Material", "Engineered Mesh", "Knit", "Synthetic", "Leather", "Recycled Mesh"),
			str("Sole Material", "Rubber", "EVA Foam", "Carbon Rubber", "Blown Rubber"),
			num("Heel Drop", "mm", 0, 12, 1), num("Weight", "g", 180, 360, 5),
			str("Closure", "Laces", "Speed Laces", "Hook and Loop"),
			flag("Waterproof"), flag("Removable Insole"),
			str("Pronation Support", "Neutral", "Stability", "Motion Control"),
			str("Gender", genders...), str("Terrain", "Road", "Trail", "Track", "Mixed"),
			num("Stack Height", "mm", 20, 45, 1),
		}},
	{"Jackets", "Jacket", "JK", []string{"Apparel", "Outerwear", "Jackets"},
		[]string{"rainy commutes", "weekend hikes", "cold winter days in the city"},
		[]attrSpec{
			variant(sized(str("Size", "XS", "S", "M", "L", "XL", "XXL", "3XL"))),
			str("Outer Material", "Polyester", "Nylon", "Cotton Blend", "Recycled Polyester", "Softshell"),
			str("Lining", "Fleece", "Mesh", "Quilted", "None"),
			str("Insulation", "Down", "Synthetic Fill", "None"),
			num("Water Column", "mm", 5000, 30000, 1000),
			flag("Hood"), flag("Packable"), str("Fit", "Regular", "Slim", "Relaxed"),
			str("Gender", genders...), num("Weight", "g", 250, 1400, 10),
			num("Pockets", "", 2, 8, 1), str("Closure", "Zip", "Buttons", "Zip and Snaps"),
		}},
	{"Laptops", "Laptop", "LP", []string{"Electronics", "Computers", "Laptops"},
		[]string{"office work on the go", "studying and streaming", "demanding creative projects"},
		[]attrSpec{
			variant(nums("Storage", "GB", "256", "512", "1024", "2048")),
			variant(nums("Memory", "GB", "8", "16", "32", "64")),
			nums("Screen Size", "in", "13.3", "14", "15.6", "16", "17.3"),
			str("Processor", "Quad-Core 2.4 GHz", "Hexa-Core 3.1 GHz", "Octa-Core 3.8 GHz", "12-Core 4.2 GHz"),
			num("Battery Capacity", "mAh", 4000, 8000, 100), num("Weight", "kg", 0.9, 3.2, 0.1),
			str("Display Resolution", "1920x1080", "2560x1600", "2880x1800", "3840x2400"),
			str("Operating System", "Linux", "Windows", "ChromeOS", "None"),
			flag("Backlit Keyboard"), flag("Touchscreen"),
			num("USB-C Ports", "", 1, 4, 1), num("Battery Life", "h", 6, 22, 1),
		}},
	{"Coffee Machines", "Coffee Machine", "CM", []string{"Home & Kitchen", "Kitchen Appliances", "Coffee Machines"},
		[]string{"a quick espresso in the morning", "entertaining guests", "busy family kitchens"},
		[]attrSpec{
			str("Machine Type", "Fully Automatic", "Portafilter", "Filter Coffee", "Capsule"),
			num("Power", "W", 900, 2200, 50), num("Water Tank Capacity", "l", 0.8, 2.5, 0.1),
			num("Pump Pressure", "bar", 9, 19, 1), num("Bean Container", "g", 150, 500, 25),
			flag("Milk Frother"), flag("Built-in Grinder"), num("Cups at Once", "", 1, 2, 1),
			str("Housing Material", "Stainless Steel", "Plastic", "Brushed Aluminium"),
			num("Heat-up Time", "s", 20, 120, 5), flag("Descaling Program"),
			num("Width", "cm", 18, 40, 0.5),
		}},
	{"Cordless Drills", "Cordless Drill", "CD", []string{"Tools & DIY", "Power Tools", "Drills"},
		[]string{"home improvement projects", "professional job sites", "assembling furniture"},
		[]attrSpec{
			variant(str("Kit", "Tool Only", "1 Battery", "2 Batteries", "2 Batteries and Case")),
			nums("Voltage", "V", "10.8", "12", "18", "36"),
			num("Battery Capacity", "mAh", 1500, 6000, 500), num("Max Torque", "Nm", 30, 135, 5),
			num("Idle Speed", "rpm", 1200, 2200, 100), nums("Chuck Size", "mm", "10", "13"),
			flag("Hammer Function"), flag("Brushless Motor"), num("Torque Settings", "", 15, 25, 1),
			num("Weight", "kg", 0.9, 2.4, 0.1), flag("LED Work Light"),
		}},
	{"Sofas", "Sofa", "SF", []string{"Furniture", "Living Room", "Sofas"},
		[]string{"relaxed movie nights", "compact city apartments", "large family living rooms"},
		[]attrSpec{
			variant(str("Upholstery", "Velvet", "Linen", "Leather", "Corduroy", "Microfiber", "Wool Blend")),
			num("Width", "cm", 160, 320, 5), num("Depth", "cm", 80, 110, 1),
			num("Seat Height", "cm", 40, 50, 1), num("Seats", "", 2, 5, 1),
			str("Frame Material", "Solid Wood", "Plywood", "Metal"),
			str("Leg Material", "Oak", "Walnut", "Black Metal", "Brass"),
			flag("Sleeper Function"), flag("Removable Covers"), num("Max Load", "kg", 240, 600, 20),
			str("Style", "Scandinavian", "Mid-Century", "Modern", "Classic"),
		}},
	{"Smartphones", "Smartphone", "SP", []string{"Electronics", "Phones", "Smartphones"},
		[]string{"staying connected all day", "mobile photography", "gaming and streaming on the go"},
		[]attrSpec{
			variant(nums("Storage", "GB", "64", "128", "256", "512", "1024")),
			num("Battery Capacity", "mAh", 3000, 6000, 100),
			nums("Screen Size", "in", "6.1", "6.4", "6.7", "6.8"),
			nums("Main Camera", "MP", "12", "48", "50", "108", "200"), num("Weight", "g", 150, 240, 1),
			flag("5G"), flag("Dual SIM"), flag("Wireless Charging"),
			str("Water Resistance", "IP54", "IP67", "IP68"), nums("Memory", "GB", "4", "6", "8", "12"),
			str("Operating System", "Android", "Open Source OS"),
		}},
	{"Headphones", "Headphones", "HP", []string{"Electronics", "Audio", "Headphones"},
		[]string{"long flights and train rides", "focused work in open offices", "workouts and commuting"},
		[]attrSpec{
			str("Form Factor", "Over-Ear", "On-Ear", "In-Ear"), flag("Active Noise Cancelling"),
			num("Battery Life", "h", 15, 60, 1), num("Driver Size", "mm", 6, 50, 1),
			str("Connection", "Bluetooth", "Wired", "Bluetooth and Wired"), num("Weight", "g", 5, 350, 5),
			num("Frequency Response Max", "kHz", 20, 40, 1), flag("Foldable"), flag("Microphone"),
			num("Charging Time", "min", 60, 180, 10), num("Impedance", "ohm", 16, 300, 2),
		}},
	{"Backpacks", "Backpack", "BP", []string{"Bags & Luggage", "Backpacks", "Daypacks"},
		[]string{"daily commuting", "day hikes", "weekend city trips"},
		[]attrSpec{
			variant(nums("Volume", "l", "12", "18", "20", "24", "28", "32", "40", "45")),
			str("Material", "Ripstop Nylon", "Recycled Polyester", "Canvas", "Waxed Cotton"),
			num("Weight", "g", 400, 1600, 10), flag("Laptop Compartment"), flag("Rain Cover"),
			str("Back System", "Padded", "Ventilated Mesh", "Frame Sheet"),
			num("Height", "cm", 40, 60, 1), num("Pockets", "", 3, 10, 1), flag("Hip Belt"),
			num("Max Laptop Size", "in", 13, 17, 1),
		}},
	{"Televisions", "TV", "TV", []string{"Electronics", "TV & Video", "Televisions"},
		[]string{"movie nights at home", "sports broadcasts", "console gaming"},
		[]attrSpec{
			variant(nums("Screen Size", "in", "43", "50", "55", "65", "75", "85")),
			str("Panel Type", "LED", "QLED", "OLED", "Mini-LED"),
			str("Resolution", "Full HD", "4K UHD", "8K UHD"), nums("Refresh Rate", "Hz", "60", "100", "120"),
			num("Power Consumption", "W", 60, 220, 5), num("HDMI Ports", "", 2, 4, 1),
			flag("Smart TV"), flag("HDR"), num("Weight", "kg", 7, 32, 0.5),
			str("Energy Class", energyLabels...), num("Speaker Output", "W", 20, 60, 5),
		}},
	{"Refrigerators", "Refrigerator", "RF", []string{"Home & Kitchen", "Large Appliances", "Refrigerators"},
		[]string{"weekly family shopping", "small kitchens", "keeping fresh food longer"},
		[]attrSpec{
			num("Total Capacity", "l", 120, 620, 5), num("Freezer Capacity", "l", 0, 180, 5),
			num("Height", "cm", 85, 200, 1), num("Width", "cm", 50, 91, 1),
			str("Energy Class", energyLabels...), num("Annual Energy Consumption", "kWh", 90, 400, 5),
			num("Noise Level", "dB", 32, 42, 1), flag("No Frost"), flag("Water Dispenser"),
			str("Door Hinge", "Right", "Left", "Reversible"), str("Installation", "Freestanding", "Built-in"),
		}},
	{"Bicycles", "Bike", "BK", []string{"Sports & Outdoors", "Cycling", "Bicycles"},
		[]string{"daily rides to work", "long weekend tours", "gravel and forest trails"},
		[]attrSpec{
			variant(sized(str("Frame Size", "XS", "S", "M", "L", "XL"))),
			nums("Wheel Size", "in", "26", "27.5", "28", "29"), num("Gears", "", 1, 24, 1),
			str("Frame Material", "Aluminium", "Carbon", "Steel", "Titanium"),
			str("Brake Type", "Hydraulic Disc", "Mechanical Disc", "Rim"), num("Weight", "kg", 8, 18, 0.1),
			flag("Suspension Fork"), flag("Electric Assist"), num("Max Rider Weight", "kg", 100, 150, 5),
			str("Bike Type", "Road", "Gravel", "Mountain", "City", "Trekking"),
		}},
	{"Office Chairs", "Office Chair", "OC", []string{"Furniture", "Office", "Office Chairs"},
		[]string{"long days at the desk", "home offices", "shared workspaces"},
		[]attrSpec{
			num("Seat Height Min", "cm", 40, 48, 1), num("Seat Height Max", "cm", 50, 60, 1),
			num("Max Load", "kg", 100, 180, 10), str("Upholstery", "Mesh", "Fabric", "Faux Leather", "Leather"),
			flag("Lumbar Support"), flag("Headrest"),
			str("Armrests", "Fixed", "2D Adjustable", "3D Adjustable", "4D Adjustable"),
			str("Base Material", "Nylon", "Aluminium", "Steel"), num("Weight", "kg", 12, 25, 0.5),
			flag("Synchronous Mechanism"), num("Seat Width", "cm", 45, 55, 1),
		}},
	{"Tents", "Tent", "TN", []string{"Sports & Outdoors", "Camping", "Tents"},
		[]string{"festival weekends", "multi-day treks", "family camping holidays"},
		[]attrSpec{
			variant(nums("Sleeping Places", "", "1", "2", "3", "4", "5", "6", "8")),
			num("Packed Weight", "kg", 1, 9, 0.1), num("Water Column", "mm", 1500, 5000, 500),
			str("Tent Type", "Dome", "Tunnel", "Geodesic", "Pop-up"), num("Packed Length", "cm", 35, 70, 1),
			str("Pole Material", "Aluminium", "Fiberglass", "Carbon"), num("Entrances", "", 1, 3, 1),
			flag("Freestanding"), num("Inner Height", "cm", 95, 200, 5),
			str("Season Rating", "3-Season", "4-Season"),
		}},
	{"Vacuum Cleaners", "Vacuum Cleaner", "VC", []string{"Home & Kitchen", "Cleaning", "Vacuum Cleaners"},
		[]string{"homes with pets", "quick daily clean-ups", "large carpeted rooms"},
		[]attrSpec{
			str("Type", "Cordless Stick", "Canister", "Robot", "Upright"), num("Suction Power", "W", 150, 900, 10),
			num("Dust Capacity", "l", 0.3, 3, 0.1), num("Runtime", "min", 30, 90, 5),
			num("Noise Level", "dB", 58, 82, 1), flag("Bagless"), flag("HEPA Filter"),
			num("Battery Capacity", "mAh", 2000, 5000, 100), num("Weight", "kg", 1.2, 6.5, 0.1),
			num("Cable Length", "m", 5, 10, 0.5), num("Attachments", "", 2, 8, 1),
		}},
	{"Watches", "Watch", "WT", []string{"Fashion", "Accessories", "Watches"},
		[]string{"everyday wear", "business meetings", "outdoor adventures"},
		[]attrSpec{
			variant(str("Strap", "Leather", "Steel Bracelet", "Rubber", "Fabric", "Suede")),
			num("Case Diameter", "mm", 34, 46, 1),
			str("Case Material", "Stainless Steel", "Titanium", "Ceramic", "Bronze"),
			str("Movement", "Automatic", "Quartz", "Solar", "Hand-wound"),
			nums("Water Resistance", "m", "30", "50", "100", "200", "300"),
			str("Glass", "Sapphire", "Mineral", "Acrylic"), num("Weight", "g", 40, 180, 1),
			flag("Date Display"), flag("Luminous Hands"), num("Lug Width", "mm", 18, 22, 1),
			num("Power Reserve", "h", 38, 80, 2),
		}},
	{"Mattresses", "Mattress", "MT", []string{"Furniture", "Bedroom", "Mattresses"},
		[]string{"restful nights", "guest rooms", "people who sleep on their side"},
		[]attrSpec{
			variant(sized(str("Dimensions", "80x200 cm", "90x200 cm", "100x200 cm", "120x200 cm", "140x200 cm", "160x200 cm", "180x200 cm", "200x200 cm"))),
			str("Firmness", "H2", "H3", "H4"), str("Core", "Pocket Springs", "Cold Foam", "Latex", "Hybrid"),
			num("Height", "cm", 16, 30, 1), nums("Comfort Zones", "", "3", "5", "7"),
			flag("Washable Cover"), flag("Reversible"), num("Max Sleeper Weight", "kg", 80, 150, 10),
			str("Cover Material", "Cotton", "Tencel", "Bamboo Viscose", "Polyester"),
			num("Weight", "kg", 14, 40, 0.5),
		}},
	{"Blenders", "Blender", "BL", []string{"Home & Kitchen", "Kitchen Appliances", "Blenders"},
		[]string{"smoothies before work", "soups and sauces", "meal prep for the week"},
		[]attrSpec{
			num("Power", "W", 300, 1800, 50), num("Jug Capacity", "l", 0.5, 2.2, 0.1),
			str("Jug Material", "Glass", "Tritan", "Stainless Steel"), num("Speed Settings", "", 2, 12, 1),
			flag("Pulse Function"), flag("Ice Crushing"), num("Max Speed", "rpm", 18000, 32000, 1000),
			num("Blades", "", 4, 8, 2), flag("Dishwasher-safe Parts"), num("Cable Length", "cm", 70, 120, 5),
			str("Type", "Countertop", "Personal", "Hand Blender"),
		}},
	{"Lawn Mowers", "Lawn Mower", "LM", []string{"Garden", "Garden Tools", "Lawn Mowers"},
		[]string{"small town gardens", "large lawns", "hands-off weekly mowing"},
		[]attrSpec{
			str("Drive", "Cordless", "Electric", "Petrol", "Robotic"), num("Cutting Width", "cm", 32, 53, 1),
			num("Grass Box Capacity", "l", 30, 70, 5), num("Cutting Height Min", "mm", 20, 30, 5),
			num("Cutting Height Max", "mm", 60, 80, 5), num("Recommended Area", "m2", 200, 1500, 50),
			num("Weight", "kg", 11, 38, 0.5), flag("Mulching"), num("Noise Level", "dB", 80, 98, 1),
			flag("Self-propelled"), num("Cutting Height Positions", "", 3, 10, 1),
		}},
	{"Desk Lamps", "Desk Lamp", "DL", []string{"Home & Living", "Lighting", "Desk Lamps"},
		[]string{"late-night reading", "focused work at the desk", "crafts and hobbies"},
		[]attrSpec{
			num("Power", "W", 4, 15, 1), num("Luminous Flux", "lm", 300, 1200, 50),
			num("Color Temperature", "K", 2700, 6500, 100), flag("Dimmable"), flag("USB Charging Port"),
			str("Light Source", "LED", "Integrated LED", "E27 Bulb"),
			str("Material", "Aluminium", "Steel", "Wood", "Plastic"), num("Arm Length", "cm", 30, 70, 1),
			str("Base Type", "Weighted Base", "Clamp", "Wall Mount"), num("Height", "cm", 30, 70, 1),
			num("Lifetime", "h", 20000, 50000, 5000),
		}},
}

// colorSpec is part of every template and can always tell variants apart.
var colorSpec = variant(str("Color", "Black", "White", "Grey", "Navy", "Red", "Blue", "Green", "Olive",
	"Beige", "Sand", "Silver", "Graphite", "Burgundy", "Orange", "Yellow", "Teal", "Anthracite"))

// genericAttrs fill templates up to their option count; any type can carry them.
var genericAttrs = []attrSpec{
	str("Country of Origin", "Germany", "Italy", "Portugal", "Poland", "Czech Republic", "Sweden", "Vietnam", "China", "Taiwan", "Turkey"),
	num("Warranty", "months", 12, 60, 12), num("Model Year", "", 2021, 2025, 1),
	flag("Eco Label"), flag("Recycled Packaging"),
	str("Certification", "CE", "CE, GS", "CE, RoHS", "CE, TUV"),
	str("Series", "Essential", "Classic", "Pro", "Signature", "Performance", "Urban"),
	num("Package Width", "cm", 10, 120, 1), num("Package Height", "cm", 5, 90, 1),
	num("Package Depth", "cm", 5, 90, 1), num("Package Weight", "kg", 0.2, 60, 0.1),
	str("Care Instructions", "Wipe clean with a damp cloth", "Machine washable at 30 °C", "Do not use abrasive cleaners", "Hand wash only"),
	str("Target Group", "Beginners", "Enthusiasts", "Professionals", "Families"),
	num("Delivery Time", "days", 1, 14, 1), flag("Spare Parts Available"),
}
